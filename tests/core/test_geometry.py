"""Weight-space and feature-space geometry: gnomonic cones, the notes' 1-D cone, Gram embeddings, ρ_K."""

import numpy as np
import pytest
import scipy.sparse as sp

from percviz.core import PointSet, Problem
from percviz.core.geometry import (
    MAX_STRETCH,
    Gnomonic,
    cone_1d,
    cone_picture,
    convex_hull,
    embed_gram,
    feature_picture,
    line_reduction,
    line_segment,
    min_norm_point,
    point_in_polygon,
    polygon_area,
)


def _same_vertices(poly, expected, tol=1e-9):
    poly, expected = np.asarray(poly), np.asarray(expected)
    assert len(poly) == len(expected)
    for v in expected:
        assert np.min(np.linalg.norm(poly - v, axis=1)) < tol, (v, poly)


def _rho_independent(G):
    """min over the simplex of ‖p‖_G by a clarabel QP: ρ_K when separable, 0 otherwise."""
    import clarabel  # noqa: PLC0415

    n = len(G)
    P = sp.csc_matrix(np.triu(G))
    A = sp.csc_matrix(np.vstack([np.ones((1, n)), -np.eye(n)]))
    b = np.r_[1.0, np.zeros(n)]
    cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(n)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-12
    sol = clarabel.DefaultSolver(P, np.zeros(n), A, b, cones, settings).solve()
    p = np.clip(np.array(sol.x), 0, None)
    return float(np.sqrt(max(p @ G @ p, 0.0)))


def _rho_core(problem):
    """ρ_K of a problem: the core's optimal_margin when it has landed, else the independent QP."""
    try:
        from percviz.core.gram import optimal_margin  # noqa: PLC0415
    except ImportError:
        return _rho_independent(np.asarray(problem.G))
    m = optimal_margin(problem)
    return max(float(m.rho), 0.0) if m.separable else 0.0


# --- the gnomonic projection -----------------------------------------------------------------------
def test_orthant_cone_projects_to_the_triangle_of_its_extreme_rays():
    Y = np.eye(3)  # cone = positive orthant, extreme rays e1, e2, e3
    pic = cone_picture(Y)
    np.testing.assert_allclose(pic.projection.center, np.ones(3) / np.sqrt(3), atol=1e-15)
    rays = pic.projection.project(np.eye(3)).points
    _same_vertices(pic.polygon, rays)
    # the triangle is equilateral with circumradius √2 around the tangent point
    np.testing.assert_allclose(np.linalg.norm(rays, axis=1), np.sqrt(2), atol=1e-12)
    assert pic.bounded and not pic.empty
    np.testing.assert_allclose(pic.best, np.ones(3) / np.sqrt(3), atol=1e-9)
    np.testing.assert_allclose(pic.best_point, [0, 0], atol=1e-9)


def test_square_pyramid_cone_and_points_inside_and_outside():
    # a0 > |a1| and a0 > |a2|: tangent point (1, 0, 0), extreme rays (1, ±1, ±1) → a square of side 2
    Y = np.array([[1, 1, 0], [1, -1, 0], [1, 0, 1], [1, 0, -1]], dtype=float)
    pic = cone_picture(Y)
    np.testing.assert_allclose(pic.projection.center, [1, 0, 0], atol=1e-15)
    rays = np.array([[1, s, t] for s in (1, -1) for t in (1, -1)], dtype=float)
    _same_vertices(pic.polygon, pic.projection.project(rays).points)
    np.testing.assert_allclose(np.sort(np.abs(pic.polygon).ravel()), np.ones(8), atol=1e-12)
    rng = np.random.default_rng(3)
    A = rng.normal(size=(600, 3)) * [2, 1, 1]
    near = A @ pic.projection.center > 0.05
    inside_cone = np.all(A @ Y.T > 1e-6, axis=1)
    outside_cone = np.any(A @ Y.T < -1e-6, axis=1)
    P = pic.projection.project(A).points
    checked = 0
    for a, p, ins, outs, ok in zip(A, P, inside_cone, outside_cone, near):
        if not ok:
            continue
        if ins:
            assert point_in_polygon(pic.polygon, p), a
            checked += 1
        elif outs:
            assert not point_in_polygon(pic.polygon, p), a
            checked += 1
    assert checked > 250


def test_projection_round_trip_and_far_hemisphere():
    g = Gnomonic.at([1.0, 2.0, 2.0])
    P = np.array([[0.0, 0.0], [0.3, -1.2], [2.0, 5.0]])
    back = g.project(g.lift(P))
    np.testing.assert_allclose(back.points, P, atol=1e-12)
    assert not back.far.any()
    far = g.project(np.array([[-1.0, -2.0, -1.0], [-1.0, -2.0, -2.0]]))
    assert far.far.all() and np.isnan(far.points).all()
    np.testing.assert_allclose(np.linalg.norm(far.edge, axis=1), 1.0)
    # a direction just beyond the horizon points the same way as one just before it
    e1 = g.basis[0]
    just_before = g.project(e1 + 1e-3 * g.center)
    just_after = g.project(e1 - 1e-3 * g.center)
    np.testing.assert_allclose(just_before.points[0] / np.linalg.norm(just_before.points[0]), just_after.edge[0], atol=1e-12)


def test_constraint_lines_are_the_images_of_the_planes():
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(5, 3))
    Y[:, 0] = np.abs(Y[:, 0]) + 0.5
    pic = cone_picture(Y)
    for y, n, h in zip(Y, pic.normals, pic.offsets):
        seg = line_segment(n, h, [-50, 50, -50, 50])
        assert seg is not None
        D = pic.projection.lift(seg)
        np.testing.assert_allclose(D @ y, 0.0, atol=1e-9)


def test_xor_cone_is_empty_and_lines_remain():
    X = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], dtype=float)
    y = np.array([1, 1, -1, -1.0])
    pic = cone_picture(np.column_stack([np.ones(4), X]) * y[:, None])
    assert pic.empty and len(pic.polygon) == 0 and pic.best is None
    assert pic.has_line.sum() == 4


def test_samples_spanning_a_plane_give_a_strip_cut_by_the_view_box():
    # all points on x2 = 0 with φ = (1, x1, x2): the cone is a wedge × R, unbounded in the picture
    Y = np.array([[1, 1.0, 0], [1, 2.5, 0], [-1, 1.5, 0], [-1, -0.2, 0]])
    pic = cone_picture(Y)
    assert not pic.empty and not pic.bounded and len(pic.polygon) >= 3


# --- the notes' 1-D example ------------------------------------------------------------------------
def test_notes_one_dimensional_cone_extent_and_shortest_margin_vector():
    # x = 1.0, 2.5 in ω1 and −1.5, 0.2 in ω2; y = (1, x); the notes print 101.31° to 135.00°,
    # the shortest a with aᵗy_i ≥ 1 is (−1.5, 2.5) and the walls move by [0.7071 0.3714 0.5547 0.9806]
    X = np.array([[1.0, 0], [2.5, 0], [-1.5, 0], [0.2, 0]])
    y = np.array([1, 1, -1, -1.0])
    red = line_reduction(np.column_stack([np.ones(4), X]), y, X, ["1", "x1", "x2"])
    assert red is not None
    np.testing.assert_allclose(red.Z, [[1, 1], [1, 2.5], [-1, 1.5], [-1, -0.2]])
    np.testing.assert_allclose(red.M, [[1, 0, 0], [0, 1, 0]])
    c = cone_1d(red.Z, b=1.0)
    assert c.angles[0] == pytest.approx(101.30993247, abs=1e-6) and c.angles[1] == pytest.approx(135.0, abs=1e-9)
    np.testing.assert_allclose(c.shortest, [-1.5, 2.5], atol=1e-9)
    assert -c.shortest[0] / c.shortest[1] == pytest.approx(0.6)
    np.testing.assert_allclose(c.wall_shift, [0.7071, 0.3714, 0.5547, 0.9806], atol=5e-5)
    # every vertex of the margin region satisfies a·z_i ≥ b, with equality on its walls
    assert np.all(c.margin_region @ red.Z.T >= 1 - 1e-9)
    assert point_in_polygon(c.wedge, c.best * 3) and not point_in_polygon(c.wedge, [1.0, 1.0])


def test_line_reduction_on_a_slanted_line_preserves_every_score():
    X = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 3.0], [-1.0, 0.0]])
    y = np.array([1, 1, -1, -1.0])
    Phi = np.column_stack([np.ones(4), X])
    red = line_reduction(Phi, y, X, ["1", "x1", "x2"])
    a = np.array([0.3, -1.2, 0.7])
    np.testing.assert_allclose(red.Z @ (red.M @ a), (Phi * y[:, None]) @ a, atol=1e-12)
    assert line_reduction(Phi, y, X + [[0, 0], [0, 0.1], [0, 0], [0, 0]], ["1", "x1", "x2"]) is None


def test_empty_1d_cone():
    Z = np.array([[1, 1.0], [-1, -1.0], [1, -2.0]])
    c = cone_1d(Z)
    assert c.empty and c.angles is None and len(c.wedge) == 0


# --- feature space ---------------------------------------------------------------------------------
def _scene(n=25, seed=0, flip=False):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 2))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] > 0.2, 1, -1)
    if flip:
        y[0] = -y[0]
        X[1] = X[0]
        y[1] = -y[0]
    return PointSet.from_signed(X, y)


def test_embedding_reproduces_G_when_rank_at_most_3():
    prob = Problem(_scene(), kernel="affine")
    emb = embed_gram(prob.G)
    assert emb.exact and emb.rank == 3 and emb.dim == 3
    np.testing.assert_allclose(emb.coords @ emb.coords.T, prob.G, atol=1e-9)
    assert emb.title() == "exact (rank r = 3 ≤ 3)"
    lin = Problem(_scene(seed=4), kernel="linear")
    emb2 = embed_gram(lin.G)
    assert emb2.exact and emb2.rank == 2
    np.testing.assert_allclose(emb2.coords @ emb2.coords.T, lin.G, atol=1e-9)


def test_rbf_embedding_is_approximate_and_says_how_much_it_captures():
    prob = Problem(_scene(), kernel="rbf:gamma=1")
    emb = embed_gram(prob.G)
    assert not emb.exact and emb.dim == 3 and emb.rank > 3
    w = np.linalg.eigvalsh(prob.G)[::-1]
    assert emb.captured == pytest.approx(w[:3].sum() / prob.n, rel=1e-9)
    assert "approximate: top 3 components capture" in emb.title()


@pytest.mark.parametrize("kernel", ["affine", "linear"])
def test_hull_min_norm_point_has_norm_rho(kernel):
    prob = Problem(_scene(seed=1), kernel=kernel)
    pic = feature_picture(prob.G)
    rho = _rho_core(prob)
    assert rho > 1e-3
    assert pic.min_norm.separable
    assert pic.min_norm.norm == pytest.approx(rho, abs=1e-6)
    assert np.linalg.norm(pic.min_point) == pytest.approx(rho, abs=1e-6)
    # the min-norm point's direction separates: every y_i φ̃(x_i) has inner product ≥ ρ² with it
    assert np.all(pic.embedding.coords @ pic.min_point >= rho**2 - 1e-9)


def test_nonseparable_min_norm_point_is_the_origin_inside_the_hull():
    prob = Problem(_scene(seed=2, flip=True), kernel="affine")
    pic = feature_picture(prob.G)
    assert not pic.min_norm.separable
    assert pic.min_norm.norm < 1e-8
    np.testing.assert_allclose(pic.min_point, 0, atol=1e-8)
    assert pic.min_norm.p.sum() == pytest.approx(1.0) and pic.min_norm.p.min() >= 0


def test_min_norm_point_against_an_independent_qp_on_rbf():
    prob = Problem(_scene(n=40, seed=5), kernel="rbf:gamma=0.7")
    mnp = min_norm_point(prob.G)
    assert mnp.norm == pytest.approx(_rho_independent(np.asarray(prob.G)), abs=1e-6)
    assert mnp.norm == pytest.approx(_rho_core(prob), abs=1e-6)


def test_hull_handles_degenerate_point_sets():
    assert convex_hull(np.zeros((3, 3))).dim == 0
    line = convex_hull(np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2], [0.5, 0.5, 0.5]]))
    assert line.dim == 1 and sorted(line.edges[0]) == [0, 2]
    square = convex_hull(np.array([[0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1], [0.5, 0.5, 1]]))
    assert square.dim == 2 and sorted(square.vertices.tolist()) == [0, 1, 2, 3] and len(square.edges) == 4
    cube = convex_hull(np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)], dtype=float))
    assert cube.dim == 3 and len(cube.vertices) == 8 and len(cube.edges) == 12  # no face diagonals


# --- the vectorized pieces the panels use for thousands of points ------------------------------------------
def test_line_segments_match_the_one_line_clipper():
    from percviz.core.geometry import line_segment, line_segments

    r = np.random.default_rng(4)
    N = r.normal(size=(300, 2))
    N[:5] = [[0, 1], [1, 0], [0, 0], [0, 2], [3, 0]]  # axis-parallel lines and a degenerate one
    h = r.normal(scale=2, size=300)
    box = (-1.5, 2.0, -1.0, 1.0)
    segs, ok = line_segments(N, h, box)
    for i in range(300):
        one = line_segment(N[i], h[i], box)
        assert ok[i] == (one is not None), i
        if one is not None:
            np.testing.assert_allclose(segs[i], one, atol=1e-12)


def test_region_with_many_half_planes_equals_clipping_one_by_one():
    from percviz.core.geometry import box_polygon, clip_halfplane, polygon_area, region

    r = np.random.default_rng(6)
    ang = r.uniform(0, 2 * np.pi, 2000)
    N = -np.column_stack([np.cos(ang), np.sin(ang)])  # n·p + h ≥ 0 with h = r_i: a polygon around 0
    h = r.uniform(0.5, 3.0, 2000)
    box = box_polygon(-5, 5, -5, 5)
    fast = region(N, h, box)
    slow = box.copy()
    for n_, h_ in zip(N, h):
        slow = clip_halfplane(slow, n_, h_)
    assert polygon_area(fast) == pytest.approx(polygon_area(slow), rel=1e-12)
    assert np.all(fast @ N.T + h >= -1e-9)


def test_randomized_eigenpairs_agree_with_eigh_and_keep_exactness():
    from percviz.core.geometry import embed_gram, top_eigenpairs

    pts = _scene(n=400)
    G = Problem(pts, kernel="rbf:gamma=1").G
    w, V = np.linalg.eigh(G)
    wr, Vr = top_eigenpairs(G, 3)
    np.testing.assert_allclose(wr[:3], w[::-1][:3], rtol=1e-6)
    assert abs(abs(Vr[:, 0] @ V[:, -1]) - 1) < 1e-6
    Ga = Problem(pts, kernel="affine").G  # rank 3: the randomized embedding is exact too
    emb = embed_gram(Ga, partial=True)
    assert emb.exact and not emb.estimated
    np.testing.assert_allclose(emb.coords @ emb.coords.T, Ga, atol=1e-9)
    approx = embed_gram(G, partial=True)
    assert approx.estimated and "randomized estimate" in approx.title()


def test_a_thin_tilted_cone_is_turned_along_x_and_fills_its_frame():
    # rays (1, ±0.3, ±0.02) turned 40° about a0: a thin rectangle whose long side is tilted in the plane
    th = np.radians(40)
    R = np.array([[1, 0, 0], [0, np.cos(th), -np.sin(th)], [0, np.sin(th), np.cos(th)]])
    rays = np.array([[1, s * 0.3, t * 0.02] for s, t in ((1, 1), (-1, 1), (-1, -1), (1, -1))]) @ R.T
    # each wall through two consecutive rays, its normal pointing inside
    Y = np.array([np.cross(rays[i], rays[(i + 1) % 4]) for i in range(4)])
    Y *= np.sign(Y @ rays.mean(axis=0))[:, None]
    pic = cone_picture(Y)
    P = pic.polygon
    x0, x1, y0, y1 = pic.frame
    assert ((P[:, 0] >= x0) & (P[:, 0] <= x1) & (P[:, 1] >= y0) & (P[:, 1] <= y1)).all()
    # turned: the long side (0.6 = 2 × 0.3 at the tangent point a0 = 1) runs along x, the short (0.04) along y
    np.testing.assert_allclose(np.ptp(P, axis=0), [0.6, 0.04], atol=1e-9)
    # 15:1 is stretched only MAX_STRETCH times, and the cone still fills a quarter of its frame
    np.testing.assert_allclose((x1 - x0) / (y1 - y0), MAX_STRETCH, rtol=1e-6)
    assert abs(polygon_area(P)) / ((x1 - x0) * (y1 - y0)) > 0.25
    # the square view around it (what the picture showed before) is mostly empty
    v = pic.view
    assert abs(polygon_area(P)) / ((v[1] - v[0]) * (v[3] - v[2])) < 0.1
    # the overview reaches every line's nearest point to the tangent point, and holds the whole cone
    o = pic.overview
    assert (P[:, 0] > o[0]).all() and (P[:, 0] < o[1]).all() and (P[:, 1] > o[2]).all() and (P[:, 1] < o[3]).all()

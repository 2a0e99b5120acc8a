"""The preset format's optional race: lanes round-trip, bad lanes name their field, old files are unchanged."""

import json

import pytest

from percviz.core import presets as pr
from percviz.core.errors import PresetError
from percviz.core.experiments import Lane, Race


def _doc(**extra):
    doc = {"format": "percviz-preset", "version": 1, "points": [[0, 0], [1, 1], [3, 3]], "classes": [0, 0, 1]}
    doc.update(extra)
    return doc


def test_race_lanes_round_trip_and_old_files_have_none(tmp_path):
    lanes = [{"algorithm": "nkp"}, {"algorithm": "nvn", "kernel": "rbf:gamma=1", "params": {"eps": 0.01}}]
    p = pr.preset_from_dict(_doc(race=lanes))
    assert p.race[1] == {"algorithm": "nvn", "kernel": "rbf:gamma=1", "features": "linear", "params": {"eps": 0.01}}
    assert pr.load_preset(pr.save_preset(p, tmp_path / "r.json")) == p
    plain = pr.preset_from_dict(_doc())
    assert plain.race == () and "race" not in plain.to_dict()


@pytest.mark.parametrize("race,field", [
    ([{"algorithm": "nkp"}], "race"),
    ([{"algorithm": "nkp"}, {"algorithm": "nope"}], "race[1].algorithm"),
    ([{"algorithm": "nkp"}, {"algorithm": "nvn", "params": {"eps": 5}}], "race[1].params.eps"),
    ([{"algorithm": "nkp", "kernel": "rbf:gamma=-1"}, {"algorithm": "snkp"}], "race[0].kernel"),
])
def test_bad_lanes_name_their_field(race, field):
    with pytest.raises(PresetError) as e:
        pr.preset_from_dict(_doc(race=race))
    assert e.value.field == field


def test_shipped_race_preset_races_as_its_explanation_says():
    p = pr.load_preset(pr.SHIPPED_DIR / "race-thin-margin.json")
    assert [lane["algorithm"] for lane in p.race] == ["perceptron", "nkp", "snkp"]
    race = Race(p.points, [Lane(**lane) for lane in p.race], max_iter=p.max_iter)
    race.advance(1200)
    table = {r.algorithm: r for r in race.table()}
    assert table["snkp"].iteration == 48 and table["perceptron"].iteration == 1184  # quoted in the explanation
    assert table["nkp"].iteration is None and f"NKP after {17480}" in p.explanation
    assert json.loads((pr.SHIPPED_DIR / "race-thin-margin.json").read_text())["race"][0]["algorithm"] == "perceptron"

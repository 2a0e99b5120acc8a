"""What the window shows: the canvas and its layers, curves, weight and feature views, controls."""

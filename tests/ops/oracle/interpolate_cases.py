"""The interpolate family's oracle cases: (name, kind, attrs, inputs, outputs), small f32 shapes."""

F = "f32"
H = {"data_format": "NCX", "coordinate_transformation_mode": "half_pixel"}
A = {"data_format": "NCX", "coordinate_transformation_mode": "align_corners"}
CASES = [
    (
        "nearest_half_up",
        "Interpolate",
        {**H, "mode": "nearest", "sizes": [8, 11]},
        [(F, [1, 2, 5, 4])],
        [(F, [1, 2, 8, 11])],
    ),
    (
        "nearest_half_down",
        "Interpolate",
        {**H, "mode": "nearest", "sizes": [3, 2]},
        [(F, [1, 2, 7, 5])],
        [(F, [1, 2, 3, 2])],
    ),
    (
        "nearest_align",
        "Interpolate",
        {**A, "mode": "nearest", "sizes": [7, 3]},
        [(F, [1, 2, 4, 5])],
        [(F, [1, 2, 7, 3])],
    ),
    (
        "nearest_scales",
        "Interpolate",
        {**H, "mode": "nearest", "scales": [0.809524]},
        [(F, [2, 3, 21])],
        [(F, [2, 3, 17])],
    ),
    (
        "linear_half_up",
        "Interpolate",
        {**H, "mode": "linear", "sizes": [8, 11]},
        [(F, [1, 2, 5, 4])],
        [(F, [1, 2, 8, 11])],
    ),
    (
        "linear_half_down",
        "Interpolate",
        {**H, "mode": "bilinear", "sizes": [3, 2]},
        [(F, [1, 2, 7, 5])],
        [(F, [1, 2, 3, 2])],
    ),
    (
        "linear_align",
        "Interpolate",
        {**A, "mode": "linear", "sizes": [7, 3]},
        [(F, [1, 2, 4, 5])],
        [(F, [1, 2, 7, 3])],
    ),
    (
        "trilinear_nxc",
        "Interpolate",
        {"mode": "trilinear", "scales": [2.0, 0.5, 1.5]},
        [(F, [1, 2, 4, 3, 2])],
        [(F, [1, 4, 2, 4, 2])],
    ),
    (
        "bilinear_1d",
        "Interpolate",
        {**H, "mode": "bilinear", "sizes": [9]},
        [(F, [1, 2, 4])],
        [(F, [1, 2, 9])],
    ),
    (
        "linear_size_1",
        "Interpolate",
        {**A, "mode": "linear", "sizes": [1, 3]},
        [(F, [1, 1, 4, 5])],
        [(F, [1, 1, 1, 3])],
    ),
    (
        "backward_nearest",
        "InterpolateBackward",
        {**H, "mode": "nearest", "sizes": [8, 3]},
        [(F, [1, 2, 5, 4]), (F, [1, 2, 8, 3])],
        [(F, [1, 2, 5, 4])],
    ),
    (
        "backward_linear",
        "InterpolateBackward",
        {**H, "mode": "linear", "sizes": [8, 3]},
        [(F, [1, 2, 5, 4]), (F, [1, 2, 8, 3])],
        [(F, [1, 2, 5, 4])],
    ),
    (
        "backward_linear_align",
        "InterpolateBackward",
        {**A, "mode": "linear", "scales": [2.0, 0.5]},
        [(F, [1, 2, 3, 4]), (F, [1, 2, 6, 2])],
        [(F, [1, 2, 3, 4])],
    ),
]

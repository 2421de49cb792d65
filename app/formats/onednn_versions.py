"""The oneDNN release in which each Graph API op kind, op attribute, data type and property type
came in, where that is after v3.0 (the first release with the Graph API): what a file whose `version`
is older cannot have. Written by scripts/onednn_versions.py from oneDNN's release tags; do not edit.
"""

OPS: dict[str, tuple[int, int]] = {
    "Dropout": (3, 12),
    "GenIndex": (3, 7),
    "GreaterEqual": (3, 7),
    "GroupNorm": (3, 6),
    "HardSigmoid": (3, 1),
    "HardSigmoidBackward": (3, 1),
    "Pow": (3, 2),
    "RMSNorm": (3, 11),
    "Select": (3, 2),
}
# (op kind, attribute): where the attribute came after its op
ATTRS: dict[tuple[str, str], tuple[int, int]] = {
    ("DynamicDequantize", "group_shape"): (3, 7),
    ("GELU", "mode"): (3, 9),
    ("GELUBackward", "mode"): (3, 9),
    ("MatMul", "accumulation_mode"): (3, 10),
    ("SoftMax", "mode"): (3, 8),
}
DTYPES: dict[str, tuple[int, int]] = {
    "boolean": (3, 2),
    "f8_e4m3": (3, 4),
    "f8_e5m2": (3, 4),
    "s4": (3, 7),
    "s64": (3, 12),
    "u4": (3, 7),
}
PROPERTIES: dict[str, tuple[int, int]] = {
    "host_scalar": (3, 9),
}

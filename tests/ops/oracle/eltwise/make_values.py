import numpy as np, os, sys
sys.path.insert(0, "/tmp/eltwise_work")
from make_graph import VARIANTS
F = np.finfo(np.float32)
special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 1e-40, -1e-40, F.tiny, -F.tiny,
    F.max, -F.max, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 1.0, -1.0, 3.0, -3.0, 6.0, -6.0, 88.7, 88.73, 89.0,
    -87.0, -88.8, -103.0, -104.0, 100.0, -100.0, 1e10, -1e10, 4194304.5, 8388609.0, 1e-8, -1e-8,
    0.49999997, -0.49999997, 15.0, -15.0, 20.0, -20.0, 9.0, -9.0, 1.25, -2.0, 0.1], dtype=np.float32)
rng = np.random.default_rng(7)
grid = np.arange(-12, 12.01, 0.5, dtype=np.float32)
rand = (rng.standard_normal(128 - special.size - grid.size) * 4).astype(np.float32)
src = np.concatenate([special, grid, rand]).astype(np.float32)
n = src.size
dd = rng.standard_normal(n).astype(np.float32)
dd[:len(special)] = 1.0
dd[1] = -1.0
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
for i, (kind, attrs) in enumerate(VARIANTS):
    np.save(f"{out}/op{i}_in0.npy", src)
    if kind.endswith("Backward"):
        np.save(f"{out}/op{i}_in1.npy", dd)
print(n)

# E1.2 on calibration-e12.md's closest cell (warm 0.5, 512 GB, MA/SL target 0.5): C2MARL at α 0.95, 900 × 3.
PACKLAB_THREADS=1 nice -n 10 target/release/packlab run results/001/issue25/e12-calibrated/c2marl-095.scenario.json > results/001/issue25/e12-calibrated/c2marl-095.json

# One C2MARL seed at the calibrated E1.3 (timing: 178 s of wall time, 53 s of CPU at load 7 on 2 cores)
cd results/001/issue25/e13-calibrated && /usr/bin/time -f "%e s wall, %U s user" -o one-seed.time env PACKLAB_THREADS=1 nice -n 5 ../../../../target/release/packlab run one-seed.scenario.json > one-seed.json

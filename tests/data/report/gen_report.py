#!/usr/bin/env python3
"""Writes the fixtures of tests/cli/test_report.sh into tests/data/report/.

Run from the repository root after `make` (the configuration's crossover
analysis is made by the rigtune it is given, as `tune` makes it):

    tests/data/report/gen_report.py [build/rigtune]

Every number comes from the parameters below and a seeded generator, so the
files are the same on every run. Three machines:

  gpubox  a hybrid 8P+8E CPU with a CUDA GPU (and no HIP). Two journals: the
          newer one (the configuration's) and an older one whose gemm trials
          the run reused, plus one trial of another fingerprint. Transformer,
          PPO and gemm with feasible, infeasible (memory) and unstable trials
          and the naive default of each; a crossover sweep (CSV) whose
          analysis the configuration holds and names. check.yaml is a check
          of it with every verdict.
  tiny    2 cores, no GPU: every transformer trial infeasible (memory, crash,
          timeout), no recommendation, no crossover.
  single  2 cores, no GPU: one gemm trial, which is the recommendation.

The figures the test asserts are noted where they are set.
"""
import math
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REL = "tests/data/report"  # paths inside the files: the tests run from the repository root
RNG = random.Random(20261123)

FP_GPU = "a1b2c3d4e5f60718"
FP_OTHER = "0f0f0f0f0f0f0f0f"
FP_TINY = "7e57000000000001"
FP_SINGLE = "7e57000000000002"

TRANSFORMER_SHAPE = "{d_model: 256, heads: 4, seq_len: 64, d_ff: 1024, layers: 2, prep_us: 20}"
GEMM_SHAPE = "{m: 1024, n: 1024, k: 1024, transfer: 0}"


def ppo_shape(envs):
    return "{num_envs: %d, stocks: 30, rollout: 128, minibatch: 256, epochs: 4, env_us: 15}" % envs


def point(backend, precision, batch, threads, workers, pin):
    return ("{backend: %s, device: 0, precision: %s, batch: %d, threads: %d, workers: %d, pin: %s}"
            % (backend, precision, batch, threads, workers, pin))


def samples(median, cv, n=9):
    """n samples around median with a relative spread of about cv."""
    return [median * math.exp(RNG.gauss(0, cv)) for _ in range(n)]


MEDIANS = {}  # (workload, point, shape) -> the median written, for the configurations


def trial(fp, workload, pt, shape, median=None, cv=0.01, phases=None, unit="samples/s",
          infeasible=None, cause=None):
    out = ["---", "fingerprint: %s" % fp, "workload: %s" % workload, "point: %s" % pt,
           "shape: %s" % shape]
    if infeasible:
        out += ["infeasible: '%s'" % infeasible, "cause: %s" % cause, "seconds: 1.5"]
    else:
        s = samples(median, cv)
        srt = sorted(s)
        mean = sum(s) / len(s)
        sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (len(s) - 1))
        med = srt[len(s) // 2]
        MEDIANS[(workload, pt, shape)] = med
        out += ["throughput: {median: %.6g, ci95: [%.6g, %.6g], unit: %s, cv: %.4g, unstable: %s}"
                % (med, srt[1], srt[-2], unit, sd / mean, "true" if sd / mean > 0.05 else "false"),
                "gflops: %.6g" % (med * 0.5), "step_seconds: %.6g" % (32 / med),
                "phases: {%s}" % ", ".join("%s: %s" % kv for kv in phases),
                "seconds: 1.2", "contention: 0.01",
                "samples: [%s]" % ", ".join("%.6g" % x for x in s)]
    return "\n".join(out) + "\n...\n"


def header(fp, host, started):
    return ("---\nrigtune_journal: 1\nfingerprint: %s\nhost: %s\nstarted: %s\n"
            "command: rigtune tune (budget 60 s)\n...\n" % (fp, host, started))


def write(name, text):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)


# ---- gpubox ----

TR_PH = lambda g, a, e, o, d: [("gemm", g), ("attention", a), ("elementwise", e),
                               ("optimizer", o), ("data", d)]
PPO_PH = lambda env, pol, xfer, upd: [("env", env), ("policy", pol), ("transfer", xfer),
                                      ("update", upd)]
GEMM_PH = [("gemm", 0.999), ("transfer", 0.001)]


def saturating(tmax, b0, b):
    return tmax * b / (b + b0)


def gpubox_transformer():
    t = []
    for b in (8, 16, 32, 64, 128):  # CPU, all P-cores, no workers
        t.append(trial(FP_GPU, "transformer", point("cpu", "fp32", b, 8, 0, "compact"),
                       TRANSFORMER_SHAPE, saturating(410, 6, b), 0.012,
                       TR_PH(0.70, 0.12, 0.08, 0.04, 0.06)))
    # the naive default: cpu fp32 batch 32, 8 threads, no workers, no pinning:
    # compute + update 94% (asserted)
    t.append(trial(FP_GPU, "transformer", point("cpu", "fp32", 32, 8, 0, "none"),
                   TRANSFORMER_SHAPE, 305, 0.015, TR_PH(0.70, 0.12, 0.08, 0.04, 0.06)))
    for b in (8, 16, 32, 64, 128, 256, 512):
        t.append(trial(FP_GPU, "transformer", point("cuda", "fp32", b, 1, 1, "compact"),
                       TRANSFORMER_SHAPE, saturating(2100, 40, b), 0.01,
                       TR_PH(0.40, 0.12, 0.10, 0.06, 0.32)))
    for b in (8, 16, 32, 64, 128, 256, 512):
        # the recommended knee is batch 64 (device busy 72%, asserted); batch 128 unstable
        cv = 0.09 if b == 128 else 0.01
        t.append(trial(FP_GPU, "transformer", point("cuda", "bf16", b, 1, 2, "compact"),
                       TRANSFORMER_SHAPE, saturating(3900, 3, b), cv,
                       TR_PH(0.38, 0.14, 0.12, 0.08, 0.28)))
    t.append(trial(FP_GPU, "transformer", point("cuda", "bf16", 1024, 1, 2, "compact"),
                   TRANSFORMER_SHAPE, infeasible="needs 26.1 GiB, 23.6 available", cause="memory"))
    return t


def gpubox_ppo():
    t = []
    # the naive default (num_envs 64, 8 threads, no workers, no pinning): compute + update 19%
    t.append(trial(FP_GPU, "ppo", point("cpu", "fp32", 32, 8, 0, "none"), ppo_shape(64),
                   21000, 0.02, PPO_PH(0.81, 0.09, 0.0, 0.10), "env-steps/s"))
    for envs in (16, 32, 64, 128, 256, 512):
        t.append(trial(FP_GPU, "ppo", point("cuda", "fp32", 32, 1, 1, "compact"), ppo_shape(envs),
                       saturating(52000, 30, envs), 0.02, PPO_PH(0.70, 0.10, 0.08, 0.12),
                       "env-steps/s"))
    for envs in (16, 32, 64, 128, 256, 512):
        # recommended: num_envs 256 with 6 workers, device busy 30% (asserted)
        t.append(trial(FP_GPU, "ppo", point("cuda", "fp32", 32, 1, 6, "compact"), ppo_shape(envs),
                       saturating(160000, 20, envs), 0.02, PPO_PH(0.62, 0.14, 0.08, 0.16),
                       "env-steps/s"))
    return t


def gpubox_gemm(fp=FP_GPU):
    t = []
    for th in (1, 2, 4, 8):
        t.append(trial(fp, "gemm", point("cpu", "fp32", 32, th, 0, "compact"), GEMM_SHAPE,
                       62 * th ** 0.92, 0.01, GEMM_PH, "GFLOP/s"))
    t.append(trial(fp, "gemm", point("cpu", "fp32", 32, 8, 0, "none"), GEMM_SHAPE, 380, 0.02,
                   GEMM_PH, "GFLOP/s"))
    t.append(trial(fp, "gemm", point("cuda", "tf32", 32, 1, 0, "compact"), GEMM_SHAPE, 61000,
                   0.01, GEMM_PH, "GFLOP/s"))
    return t


# t(n) = c + a n^b per curve: cpu:8t overtakes cpu:1t near n=80, cuda overtakes
# cpu:8t near n=258 (the asserted n* is read back from the analysis)
XO_CURVES = [("cpu:8t", (1.5e-5, 5e-12, 3.0)), ("cpu:1t", (5e-7, 3.3e-11, 3.0)),
             ("cuda", (1e-4, 5e-14, 3.0))]


def crossover_csv():
    rows = ["# gen_report.py: a crossover sweep of gpubox", "backend,precision,n,seconds"]
    for e in range(10, 23):  # 32 .. 2048, half octaves
        n = round(2 ** (e / 2))
        for _ in range(3):
            for label, (c, a, b) in XO_CURVES:
                rows.append("%s,fp32,%d,%.6e" % (label, n, (c + a * n ** b) * math.exp(RNG.gauss(0, 0.03))))
    return "\n".join(rows) + "\n"


GPU_MACHINE = """machine:
  source: live
  hostname: gpubox
  fingerprint: %s
  cpu:
    model: 13th Gen Intel(R) Core(TM) i9-13900K
    arch: x86_64
    packages: 1
    cores: 16
    pus: 24
    smt: 1
    numa_nodes:
    - {node: 0, memory_gib: 62.6}
    kinds:
    - {efficiency: 0, role: efficiency, cores: 8, pus: 8, core_type: IntelAtom, freq_max_mhz: 4300}
    - {efficiency: 1, role: performance, cores: 8, pus: 16, core_type: IntelCore, freq_max_mhz: 5800}
    usable_cores: 8
    caches_kib: {l1d: 48, l2: 2048, l3: 36864}
    governor: performance
    freq_mhz: {min: 800, max: 5800}
  os: {name: Debian GNU/Linux 12 (bookworm), kernel: 6.1.0-18-amd64}
  memory_gib: {total: 62.6, available: 58.1}
  blas:
    library: OpenBLAS
    version: '0.3.21'
    core: Haswell
    threading: pthreads
    precisions: [fp64, fp32]
    bf16: 'unavailable: this OpenBLAS does not export cblas_sbgemm'
  accelerators:
  - backend: cpu
    available: true
    devices:
    - {index: 0, name: 13th Gen Intel(R) Core(TM) i9-13900K, memory_gib: 62.6, compute_units: 8, precisions: [fp64, fp32]}
  - backend: cuda
    available: true
    devices:
    - {index: 0, name: NVIDIA GeForce RTX 4090, driver: '550.54.14', memory_gib: 23.99, compute_units: 128, precisions: [fp64, fp32, tf32, bf16, fp16]}
  - backend: hip
    available: false
    reason: 'no librigtune_hip.so beside the binary'
""" % FP_GPU

ENV = """    env:
      OMP_NUM_THREADS: '{t}'
      OPENBLAS_NUM_THREADS: '{t}'
      OMP_PROC_BIND: close
      OMP_PLACES: cores
"""


def rec(name, shape, rec_pt, rec_shape, rec_med, fast_pt, fast_shape, fast_med, unit, reason,
        threads, hints):
    def config(pt, sh, med):
        return ("      point: %s\n      shape: %s\n      throughput: {median: %.6g, ci95: [%.6g, %.6g], "
                "unit: %s, cv: 0.01, unstable: false}\n" % (pt, sh, med, med * 0.99, med * 1.01, unit))
    return ("  %s:\n    shape: %s\n    recommended:\n%s    fastest:\n%s    reason: '%s'\n%s"
            "    hints:\n      pytorch:\n%s      jax:\n      - jax.config.update('jax_default_matmul_precision', 'highest')\n"
            "    runner_ups: []\n    trials: 12\n    reused: 0\n"
            % (name, shape, config(rec_pt, rec_shape, rec_med), config(fast_pt, fast_shape, fast_med),
               reason, ENV.format(t=threads), "".join("      - '%s'\n" % h for h in hints)))


def analysis(rigtune, csv):
    """The crossover: mapping `rigtune crossover --replay` makes, indented as a config holds it."""
    yaml = subprocess.run([rigtune, "crossover", "--replay", csv], check=True,
                          capture_output=True, text=True).stdout
    body = yaml.split("\ncrossover:\n", 1)[1]
    return "crossover:\n  replay: %s/gpubox-20260101-120000-crossover.csv\n%s" % (REL, body)


def gpubox(rigtune):
    write("gpubox-20260101-120000-crossover.csv", crossover_csv())
    older = header(FP_GPU, "gpubox", "2025-12-31T09:00:00Z") + "".join(gpubox_gemm())
    # one trial of another machine (a BLAS upgrade changed the fingerprint): left out
    older += trial(FP_OTHER, "gemm", point("cpu", "fp32", 32, 8, 0, "compact"), GEMM_SHAPE, 999,
                   0.01, GEMM_PH, "GFLOP/s")
    write("gpubox-20251231-090000.yaml", older)
    write("gpubox-20260101-120000.yaml", header(FP_GPU, "gpubox", "2026-01-01T12:00:00Z")
          + "".join(gpubox_transformer() + gpubox_ppo()))
    m = lambda wl, pt, sh: MEDIANS[(wl, pt, sh)]
    gemm = m("gemm", point("cuda", "tf32", 32, 1, 0, "compact"), GEMM_SHAPE)
    knee = m("transformer", point("cuda", "bf16", 64, 1, 2, "compact"), TRANSFORMER_SHAPE)
    fast = m("transformer", point("cuda", "bf16", 512, 1, 2, "compact"), TRANSFORMER_SHAPE)
    ppo_knee = m("ppo", point("cuda", "fp32", 32, 1, 6, "compact"), ppo_shape(256))
    ppo_fast = m("ppo", point("cuda", "fp32", 32, 1, 6, "compact"), ppo_shape(512))
    recs = (rec("gemm", GEMM_SHAPE, "{backend: cuda, precision: tf32, threads: 1, pin: compact}",
                GEMM_SHAPE, gemm, "{backend: cuda, precision: tf32, threads: 1, pin: compact}",
                GEMM_SHAPE, gemm, "GFLOP/s",
                "the fastest point measured: %.3g GFLOP/s on cuda, 1 thread" % gemm,
                1, ["torch.set_num_threads(1)", "torch.set_float32_matmul_precision(''high'')  # TF32 matmuls"])
            + rec("transformer", TRANSFORMER_SHAPE,
                  "{backend: cuda, precision: bf16, batch: 64, threads: 1, workers: 2, pin: compact}",
                  TRANSFORMER_SHAPE, knee,
                  "{backend: cuda, precision: bf16, batch: 512, threads: 1, workers: 2, pin: compact}",
                  TRANSFORMER_SHAPE, fast, "samples/s",
                  "batch=64 is the knee: %.3g samples/s, within 5%% of the fastest (batch=512, "
                  "%.3g samples/s) at a smaller batch" % (knee, fast),
                  1, ["torch.set_num_threads(1)", "DataLoader(batch_size=64, num_workers=2, persistent_workers=True)",
                      "with torch.autocast(''cuda'', dtype=torch.bfloat16): ..."])
            + rec("ppo", ppo_shape(64), "{backend: cuda, precision: fp32, threads: 1, workers: 6, pin: compact}",
                  ppo_shape(256), ppo_knee, "{backend: cuda, precision: fp32, threads: 1, workers: 6, pin: compact}",
                  ppo_shape(512), ppo_fast, "env-steps/s",
                  "num_envs=256 is the knee: %.3g env-steps/s, within 5%% of the fastest (num_envs=512, "
                  "%.3g env-steps/s) at a smaller num_envs; rollout-bound: 62%% of each iteration steps "
                  "environments and every usable core already has a worker" % (ppo_knee, ppo_fast),
                  1, ["torch.set_num_threads(1)", "gymnasium.vector.AsyncVectorEnv: 256 envs in 6 worker processes"]))
    config = ("rigtune: 1\ngenerated: 2026-01-01T12:05:00Z\n" + GPU_MACHINE
              + "unavailable: 'hip: no librigtune_hip.so beside the binary'\nrecommendations:\n" + recs
              + analysis(rigtune, os.path.join(HERE, "gpubox-20260101-120000-crossover.csv"))
              + "search:\n  strategy: model\n  budget_s: 300\n  seconds: 296.4\n  trials: 40\n"
              + "  journal: %s/gpubox-20260101-120000.yaml\n" % REL)
    write("gpubox.yaml", config)


# A check of gpubox after a BLAS and driver upgrade, as rt_check_emit writes one
# (check.h): a verdict of every kind.
CHECK = """rigtune_check: 1
generated: 2026-02-01T08:00:00Z
baseline: {file: configs/gpubox.yaml, kind: configuration, journal: results/gpubox-20260101-120000.yaml,
  sweep: null, fingerprint: a1b2c3d4e5f60718, machine: true}
machine: {fingerprint: 9c9c9c9c9c9c9c9c, same_fingerprint: false}
machine_diff:
- {field: blas.core, before: Haswell, after: SkylakeX}
- {field: accelerators.cuda.driver, before: '550.54.14', after: '560.35.03'}
- {field: accelerators.hip.available, before: null, after: 'false'}
settings: {alpha: 0.01, threshold: 0.05, budget_s: 296.4, seconds: 241.7}
points:
- workload: transformer
  roles: [recommended]
  point: {backend: cuda, precision: bf16, batch: 64, threads: 1, workers: 2, pin: compact}
  shape: %(tshape)s
  unit: samples/s
  baseline: {median: 3743, n: 9}
  now: {median: 3455, n: 24, trials: 3}
  ratio: 0.923
  ci95: [0.914, 0.932]
  p: 0.0002
  test: normal
  contention: {baseline: 0.01, now: 0.02}
  verdict: regression
  reason: 'slower in 3 of 3 trials: -7.7%% (95%% CI -8.6%% to -6.8%%)'
- workload: transformer
  roles: [fastest]
  point: {backend: cuda, precision: bf16, batch: 512, threads: 1, workers: 2, pin: compact}
  shape: %(tshape)s
  unit: samples/s
  baseline: {median: 3870, n: 9}
  now: {median: 3831, n: 8, trials: 1}
  ratio: 0.99
  ci95: [0.97, 1.01]
  p: 0.41
  test: exact
  contention: {baseline: 0.01, now: 0.01}
  verdict: unchanged
  reason: 'within 5%% of the baseline'
- workload: ppo
  roles: [recommended, fastest]
  point: {backend: cuda, precision: fp32, threads: 1, workers: 6, pin: compact}
  shape: %(pshape)s
  unit: env-steps/s
  baseline: {median: 146137, n: 9}
  now: {median: 157830, n: 18, trials: 2}
  ratio: 1.08
  ci95: [1.05, 1.11]
  p: 0.001
  test: normal
  contention: {baseline: 0.02, now: 0.01}
  verdict: improvement
  reason: 'faster in 2 of 2 trials: +8.0%%'
- workload: gemm
  roles: [recommended]
  point: {backend: cpu, precision: fp32, threads: 8, pin: compact}
  shape: %(gshape)s
  unit: GFLOP/s
  baseline: {median: 420, n: 9}
  now: {median: 407, n: 10, trials: 2}
  ratio: 0.97
  ci95: [0.9, 1.05]
  p: 0.09
  test: exact
  contention: {baseline: 0.01, now: 0.31}
  verdict: inconclusive
  more_samples: 12
  reason: 'the trials disagree: one slower, one unchanged'
- workload: gemm
  roles: [sweep]
  curve: cuda fp32
  point: {backend: cuda, precision: fp32, threads: 1, pin: compact}
  shape: {m: 2048, n: 2048, k: 2048, transfer: 0}
  unit: GFLOP/s
  baseline: {median: 41000, n: 9}
  now: {median: null, n: 0, trials: 2}
  ratio: null
  ci95: null
  p: null
  test: null
  contention: {baseline: 0.01, now: 0.0}
  verdict: infeasible
  cause: memory
  reason: 'ran in the baseline, not now: out of device memory'
notes:
- 'the baseline keeps 3 sizes of the crossover sweep; all were measured again'
suggestions:
- 'OpenBLAS kernel core changed Haswell -> SkylakeX: its kernels for this CPU differ; compare OPENBLAS_VERBOSE=2 output'
summary: {unchanged: 1, regression: 1, improvement: 1, infeasible: 1, inconclusive: 1}
result: regression
""" % {"tshape": TRANSFORMER_SHAPE, "pshape": ppo_shape(256), "gshape": GEMM_SHAPE}

TINY_MACHINE = """machine:
  source: live
  hostname: %s
  fingerprint: %s
  cpu:
    model: AMD EPYC
    arch: x86_64
    packages: 1
    cores: 2
    pus: 2
    smt: 1
    numa_nodes:
    - {node: 0, memory_gib: 6.2}
    kinds:
    - {efficiency: 0, role: uniform, cores: 2, pus: 2}
    usable_cores: 2
    caches_kib: {l1d: 48, l2: 1024, l3: 32768}
    governor: unknown
  os: {name: Debian GNU/Linux 12 (bookworm), kernel: 6.1.0-18-amd64}
  memory_gib: {total: 7.7, available: 6.2}
  blas: {library: OpenBLAS, version: '0.3.21', core: Haswell, threading: pthreads, precisions: [fp64, fp32]}
  accelerators:
  - backend: cpu
    available: true
    devices:
    - {index: 0, name: AMD EPYC, memory_gib: 7.7, compute_units: 2, precisions: [fp64, fp32]}
  - backend: cuda
    available: false
    reason: 'cudaGetDeviceCount: cudaErrorNoDevice: no CUDA-capable device is detected'
"""


def tiny():
    journal = header(FP_TINY, "tiny", "2026-01-02T10:00:00Z")
    for batch, why, cause in ((64, "needs 12.5 GiB, 6.2 available", "memory"),
                              (32, "killed by signal 11 (Segmentation fault)", "crash"),
                              (16, "timeout: no result in 60 s", "timeout")):
        journal += trial(FP_TINY, "transformer", point("cpu", "fp32", batch, 2, 0, "compact"),
                         TRANSFORMER_SHAPE, infeasible=why, cause=cause)
    write("tiny-20260102-100000.yaml", journal)
    write("tiny.yaml", "rigtune: 1\ngenerated: 2026-01-02T10:01:00Z\n" + TINY_MACHINE % ("tiny", FP_TINY)
          + "recommendations:\n  transformer:\n    shape: %s\n" % TRANSFORMER_SHAPE
          + "    none: 'no feasible point: every trial failed'\n    trials: 3\n    reused: 0\n"
          + "crossover: null\nsearch:\n  strategy: model\n  budget_s: 20\n  seconds: 19\n  trials: 3\n"
          + "  journal: %s/tiny-20260102-100000.yaml\n" % REL)


def single():
    # the one point: about 96.5 GFLOP/s
    journal = header(FP_SINGLE, "single", "2026-01-03T10:00:00Z")
    journal += trial(FP_SINGLE, "gemm", point("cpu", "fp32", 32, 2, 0, "compact"), GEMM_SHAPE,
                     96.5, 0.01, GEMM_PH, "GFLOP/s")
    write("single-20260103-100000.yaml", journal)
    med = MEDIANS[("gemm", point("cpu", "fp32", 32, 2, 0, "compact"), GEMM_SHAPE)]
    write("single.yaml", "rigtune: 1\ngenerated: 2026-01-03T10:01:00Z\n" + TINY_MACHINE % ("single", FP_SINGLE)
          + "recommendations:\n"
          + rec("gemm", GEMM_SHAPE, "{backend: cpu, precision: fp32, threads: 2, pin: compact}", GEMM_SHAPE, med,
                "{backend: cpu, precision: fp32, threads: 2, pin: compact}", GEMM_SHAPE, med, "GFLOP/s",
                "the fastest point measured: %.3g GFLOP/s on cpu, 2 threads" % med, 2, ["torch.set_num_threads(2)"])
          + "crossover: null\nsearch:\n  strategy: model\n  budget_s: 5\n  seconds: 5\n  trials: 1\n"
          + "  journal: %s/single-20260103-100000.yaml\n" % REL)


def main():
    rigtune = sys.argv[1] if len(sys.argv) > 1 else "build/rigtune"
    gpubox(rigtune)
    write("check.yaml", CHECK)
    tiny()
    single()


if __name__ == "__main__":
    main()

"""The scripts under examples/ run to exit 0 under the Triton interpreter and print their key lines; and the
checks they are built on can fail (a failed comparison exits non-zero; the harness reports FAIL/CRASH/TIMEOUT)."""
import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest
import torch

from gconv.paths import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"

# script, extra arguments, regular expressions its output must contain (multiline)
SCRIPTS = {
    "01_basic.py": ([], [r"selected kernel: fwd_fp32_", r"\[PASS\] conv_fwd vs float64 F\.conv2d",
                         r"\[PASS\] gconv\.nn\.convert replaced every Conv2d", r"\[PASS\] d loss / d input"]),
    "02_forward.py": ([], [r"\[PASS\] gconv\.conv_fwd\(x, w, \.\.\.\)", r"\[PASS\] gconv\.Runner\('fwd'\)",
                           r"^depthwise 3x3, fp16"]),
    "03_backward_data.py": ([], [r"\[PASS\] gconv\.conv_bwd_data", r"\[PASS\] gconv\.Runner\('bwd_data'\)",
                                 r"^grouped G=4, stride 2, fp32"]),
    "04_backward_weight.py": ([], [r"\[PASS\] gconv\.conv_bwd_weight", r"\[PASS\] gconv\.Runner\('bwd_weight'\)"]),
    "05_registry_export.py": (["--rule-set", "tiny"], [r"rule set 'tiny' .*: 60 kernel instances",
                                                       r"^total\s+26\s+12\s+22\s+60$", r"^ALL PASS$"]),
    "06_selection_explained.py": ([], [r"\[PASS\] second select\(\) is a cache hit", r"candidates\s+\d+ from",
                                       r"\[PASS\] kernel='cudnn'", r"\(channels per group padded: C 6->8\)"]),
    "07_benchmark_one_problem.py": ([], [r"^kernel\s+role\s+padding\s+median ms", r"^cudnn\s+vendor",
                                         r"selected .*PASS$", r"interpreter timings \(meaningless for performance\)"]),
    "08_config_options.py": (["--jobs", "2"], [r"^option\s+\| kernel\s+\| status\s+\| detail",
                                               r"^merge groups \| \S+_mg[2-9]\d*\s+\| PASS",
                                               r"^split-K\s+\| fwd_\S+_sk\d+la\s+\| PASS",
                                               r"^direct\s+\| \S+_direct_\S+\s+\| PASS",
                                               r"^tap-major\s+\| \S+_tm\s+\| PASS",
                                               r"^two-stage\s+\| bwd_weight_\S+_sk\d+ts\s+\| PASS",
                                               r"^StreamK\s+\| bwd_weight_\S+_strk_\S+\s+\| PASS",
                                               r"^HARNESS OK"]),
}


def run_script(name, *args, timeout=300):
    env = {k: v for k, v in os.environ.items() if k != "GCONV_RULE_SET"}
    env["TRITON_INTERPRET"] = "1"
    return subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def load(name):
    """Import an example (or _common) as a module: its __main__ code does not run."""
    sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(f"example_{name.split('.')[0]}", EXAMPLES / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_script_is_tested_and_listed_in_the_readme():
    scripts = sorted(p.name for p in EXAMPLES.glob("[0-9][0-9]_*.py"))
    assert scripts == sorted(SCRIPTS)
    readme = (EXAMPLES / "README.md").read_text()
    assert all(f"`{name}`" in readme for name in scripts)


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_example_runs_and_passes(name, tmp_path):
    args, patterns = SCRIPTS[name]
    if name == "05_registry_export.py":
        args = [*args, "--out", str(tmp_path / "registry.json")]
    done = run_script(name, *args)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert not re.search(r"\[FAIL\]|\| (FAIL|CRASH)\s+\||\s+FAIL$", done.stdout, re.MULTILINE), output
    for pattern in patterns:
        assert re.search(pattern, done.stdout, re.MULTILINE), f"{pattern!r} not in output:\n{output}"
    if name == "05_registry_export.py":
        document = json.loads((tmp_path / "registry.json").read_text())
        assert document["rule_set"] == "tiny" and document["count"] == len(document["kernels"]) == 60
        assert {"name", "axes", "archs"} <= set(document["kernels"][0])
        assert document["kernels"][0]["axes"]["direction"] in document["kernels"][0]["name"]


def test_a_failed_check_exits_nonzero(capsys):
    common = load("_common.py")
    ref = torch.randn(2, 8, 5, 5, dtype=torch.float64)
    close = ref.float()
    assert common.rel_error(close, ref) <= common.bound(torch.float32)
    assert common.rel_error(close * (1 + 1e-4), ref) > common.bound(torch.float32)  # 1e-4 off fails fp32
    assert common.rel_error(close.half() * (1 + 1e-2), ref) > common.bound(torch.float16)
    nan = close.clone()
    nan[0, 0, 0, 0] = float("nan")
    assert common.rel_error(nan, ref) == float("inf")
    checks = common.Checks()
    assert checks.close("ok", close, ref, torch.float32)
    assert not checks.close("off", close * 1.01, ref, torch.float32)
    assert not checks.raises("no error", ValueError, lambda: None)
    with pytest.raises(SystemExit) as exit_info:
        checks.finish()
    assert exit_info.value.code == 1
    assert "[FAIL] off" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        common.Checks().finish()  # no checks at all is a failure too
    assert exit_info.value.code == 1


def test_harness_classifies_child_outcomes():
    harness = load("08_config_options.py")
    py = [sys.executable, "-c"]
    assert harness.classify(py + ["print('RESULT PASS fine')"], 60) == ("PASS", "fine")
    assert harness.classify(py + ["print('RESULT FAIL off by 1'); raise SystemExit(3)"], 60) == ("FAIL", "off by 1")
    status, detail = harness.classify(py + ["import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"], 60)
    assert (status, detail.split(":")[0]) == ("CRASH", "killed by SIGSEGV")
    status, detail = harness.classify(py + ["raise RuntimeError('boom')"], 60)
    assert status == "CRASH" and "RuntimeError: boom" in detail
    assert harness.classify(py + ["print('RESULT PASS but'); raise SystemExit(1)"], 60)[0] == "CRASH"
    assert harness.classify(py + ["import time; time.sleep(30)"], 0.5)[0] == "TIMEOUT"


def test_harness_options_detect_axes():
    harness = load("08_config_options.py")
    options = {o.label: o for o in harness.OPTIONS}
    assert options["merge groups"].axis() == "groups_to_merge" and options["split-K"].axis() == "split_k"
    fields = set(harness.KernelConfig.model_fields)
    assert (options["StreamK"].axis() is None) == (not {"streamk", "stream_k"} & fields and
                                                   not any("stream" in p.value for p in harness.Pipeline))
    assert harness.axis_on(True, "two") and harness.axis_on("two_stage", "two") and not harness.axis_on("atomic", "two")

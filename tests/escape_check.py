#!/usr/bin/env python3
"""Property checks of rigtune's writers with the real readers (Debian's python3):
every string of the inputs, however hostile, comes back equal from what rigtune
wrote, or rigtune refuses it with exit 2; nothing runs.

  escape_check.py sweep RIGTUNE FIXTURES PYTHON
                                            the Optuna and Ray Tune scripts (ast; the
                                            interpreter: Debian's python3 with Optuna, PYTHON
                                            with Ray), the W&B and Hydra YAML (PyYAML), JSON
                                            Lines
  escape_check.py env RIGTUNE FIXTURES      `rigtune env` lines: sh -n, then eval in sh
  escape_check.py shell RIGTUNE FAKE        `tune --shell --cmd` with hostile knob values
  escape_check.py page RIGTUNE FIXTURES     the report page (html.parser): no script, the
                                            text back as written, the CSP meta first

Prints TAP ("ok N - what" / "not ok N - what"), then exits 0.
"""
import ast
import html.parser
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

N = 0
CANARY = "RIGTUNE_CANARY"


def check(cond, what, detail=""):
    global N
    N += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", N, what))
    if not cond and detail:
        for line in str(detail).splitlines()[:12]:
            print("#   " + line)
    return cond


def hostile_strings(seed=23, count=20):
    """Fixed attacks, then random mixes of the characters every language treats specially."""
    payload = 'import os; os.system("touch %s")' % CANARY
    fixed = [
        "\n", "\r", "\r\n", '"', "'", "\\", '"""', "'''", "#", "</script>",
        "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "$(touch %s)" % CANARY,
        "`touch %s`" % CANARY, "${oc.env:HOME}", "\u2028", "\u2029", "\x85", "\ufeff",
        "\x01", "\x1b[31m", "\x7f", "\x9b", "\ufffe", "{{", "%s%d%n", ": x", "- y", "&a",
        "*a", '!!python/object/apply:os.system ["touch %s"]' % CANARY, "\n" + payload + "\n",
        '"\n' + payload + "\n#", "'\n" + payload + "\n#", "\\\n" + payload, "\U0001F600",
        "é", " ", "yes", "null", "0x10", "1e3", "a'b\"c", "]]>", "-->", "x; touch %s" % CANARY,
        "'; touch %s; '" % CANARY, '"; touch %s; "' % CANARY,
    ]
    alphabet = list("\n\r\t \"'\\#$(){}[]<>&;|`*!%:-=,/.aZ0") + [
        "\u2028", "\u2029", "\x85", "\ufeff", "\x00", "\x1b", "é", "\U0001F600", "</script>",
        "$(", "${", "'''", '"""', "EOD", "\x7f"]
    rng = random.Random(seed)
    mixed = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
             for _ in range(count)]
    return fixed + mixed


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, **kw)


def no_canary(where):
    return not os.path.exists(os.path.join(where, CANARY))


# ---- sweep ----------------------------------------------------------------------

def sweep_config(fixtures, host, value, unit):
    with open(os.path.join(fixtures, "sweep", "config.yaml")) as f:
        cfg = yaml.safe_load(f)
    cfg["machine"]["hostname"] = host
    cfg["machine"]["fingerprint"] = value
    rec = cfg["recommendations"]["transformer"]
    rec["env"]["OMP_PLACES"] = value
    rec["recommended"]["throughput"]["unit"] = unit
    return yaml.safe_dump(cfg)  # non-ASCII escaped: a raw NEL would be a line break


def yaml_quoted(s):
    """s as a YAML double-quoted scalar: a string whatever it looks like."""
    return yaml.safe_dump(s, default_style='"', width=1 << 20).split("\n...")[0].strip()


def shape_of(tree):
    """The script's top-level statements: their kinds and the names they bind."""
    out = []
    for node in tree.body:
        names = [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
        out.append((type(node).__name__, tuple(names)))
    return out


def literal(tree, name):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise KeyError(name)


def sweep_one(rigtune, d, fmt, value, extra=()):
    out = os.path.join(d, "out")
    if os.path.exists(out):
        os.unlink(out)
    r = run([rigtune, "sweep", "--from", "cfg.yaml", "--workload", "transformer",
             "--format", fmt, "--params", "params.yaml", "-o", out] + list(extra), cwd=d)
    text = open(out, encoding="utf-8").read() if r.returncode == 0 else None
    return r, text


def script_cmd(s):
    """--cmd, --objective and --metric with s in the command's words and the metric's name."""
    return ["--cmd", "python3 train.py --lr {lr} --tag " + s, "--objective", "loss ([0-9.]+)",
            "--metric", "m" + s]


def sweep(rigtune, fixtures, python):
    d = tempfile.mkdtemp()
    shutil.copy(os.path.join(fixtures, "sweep", "journal.yaml"), d)
    wandb_cmd = ["--cmd", "python3 train.py --lr {lr} --opt {opt}", "--objective",
                 "loss ([0-9.]+)"]
    counts = {"equal": 0, "refused": 0}
    bad = []
    reference = {}
    strings = hostile_strings()
    for i, s in enumerate(["plain"] + strings):
        if "\x00" in s:
            continue  # a C string cannot hold it: the YAML reader's concern
        host = "h" + s
        with open(os.path.join(d, "cfg.yaml"), "w", encoding="utf-8") as f:
            f.write(sweep_config(fixtures, host, s, "samples/s" + s))
        with open(os.path.join(d, "params.yaml"), "w", encoding="utf-8") as f:
            f.write("lr: {low: 0.001, high: 0.1, scale: log}\nopt: {values: [adam, %s]}\n"
                    % yaml_quoted(s))
        # a file name: every byte but letters, digits, . _ - as -
        study = re.sub(rb"[^A-Za-z0-9._-]", b"-",
                       ("rigtune-%s-transformer" % host).encode()).decode()
        for fmt, extra in (("optuna", script_cmd(s)), ("ray", script_cmd(s)),
                           ("wandb", wandb_cmd + ["--metric", "m" + s]),
                           ("hydra", []), ("grid", [])):
            r, text = sweep_one(rigtune, d, fmt, s, extra)
            if r.returncode == 2 and i > 0:
                counts["refused"] += 1
                if not refusal_expected(fmt, s, r.stderr):
                    bad.append((fmt, s, "refused: " + r.stderr.decode(errors="replace")))
                continue
            if r.returncode != 0:
                bad.append((fmt, s, "exit %d: %s" % (r.returncode, r.stderr[-300:])))
                continue
            why = check_sweep_text(fmt, text, s, study, reference)
            if why:
                bad.append((fmt, s, why))
            else:
                counts["equal"] += 1
    check(not bad, "sweep: %d outputs read back equal by ast/PyYAML/json, %d refused with "
          "exit 2 (Hydra's ${, a lone brace in --cmd)" % (counts["equal"], counts["refused"]),
          "\n".join("%s %r: %s" % b for b in bad[:6]))
    # the interpreter itself on a few of them: --help runs the data block and the body
    ran = []
    for s in ("\n" + 'import os; os.system("touch %s")' % CANARY, "\u2028\r'''\"\"\"\\"):
        with open(os.path.join(d, "cfg.yaml"), "w", encoding="utf-8") as f:
            f.write(sweep_config(fixtures, "h" + s, s, "u" + s))
        for fmt, interpreter in (("optuna", "/usr/bin/python3"), ("ray", python)):
            r, text = sweep_one(rigtune, d, fmt, s, script_cmd(s))
            p = run([interpreter, "out", "--help"], cwd=d)
            ran.append(p.returncode == 0 and b"usage:" in p.stdout)
    check(all(ran) and no_canary(d), "sweep: the Optuna and Ray Tune scripts' --help runs, "
          "and nothing the inputs said ran (no %s file)" % CANARY)
    bad_utf8 = run([rigtune, "sweep", "--from", "cfg.yaml", "--workload", "transformer",
                    "--format", "wandb", "--params", "params.yaml", "--metric", b"m\xff",
                    "--cmd", "python3 t.py --lr {lr}"], cwd=d)
    check(bad_utf8.returncode == 2 and b"--metric: not valid UTF-8" in bad_utf8.stderr,
          "sweep: an argument that is not UTF-8 is refused with exit 2",
          bad_utf8.stderr.decode(errors="replace"))
    shutil.rmtree(d)


def refusal_expected(fmt, s, stderr):
    """Hydra refuses ${ (OmegaConf would resolve it); a script, a lone brace in --cmd."""
    if fmt == "hydra":
        return "${" in s
    lone = s.replace("{{", "").replace("}}", "")
    return fmt in ("optuna", "ray") and ("{" in lone or "}" in lone) and b"--cmd: a lone" in stderr


def check_sweep_text(fmt, text, s, study, reference):
    """'' when the output reads back equal, else why not."""
    if fmt in ("optuna", "ray"):
        tree = ast.parse(text)
        if reference.setdefault(fmt, shape_of(tree)) != shape_of(tree):
            return "the script's statements differ from the plain one's"
        if literal(tree, "ENV").get("OMP_PLACES") != s:
            return "ENV: %r" % literal(tree, "ENV")
        if literal(tree, "STUDY") != study:
            return "STUDY: %r" % literal(tree, "STUDY")
        if literal(tree, "PARAMS")[1][2] != ["adam", s]:
            return "PARAMS: %r" % literal(tree, "PARAMS")
        if literal(tree, "COMMAND") != script_cmd(s)[1] or literal(tree, "METRIC") != "m" + s:
            return "COMMAND, METRIC: %r %r" % (literal(tree, "COMMAND"), literal(tree, "METRIC"))
        return ""
    if fmt == "grid":
        for line in text.splitlines():
            if json.loads(line)["env"]["OMP_PLACES"] != s:
                return "env: %r" % line
        return ""
    doc = yaml.safe_load(text)
    keys = sorted(doc)
    if reference.setdefault(fmt, keys) != keys:
        return "top-level keys %r" % keys
    if fmt == "wandb":
        if "OMP_PLACES=" + s not in doc["command"]:
            return "command: %r" % doc["command"]
        if doc["name"] != study or doc["metric"]["name"] != "m" + s:
            return "name/metric: %r %r" % (doc["name"], doc["metric"])
        if doc["parameters"]["opt"]["values"] != ["adam", s]:
            return "parameters.opt: %r" % doc["parameters"]["opt"]
        return ""
    if doc["hydra"]["job"]["env_set"]["OMP_PLACES"] != s:
        return "env_set: %r" % doc["hydra"]["job"]["env_set"]
    if doc["hydra"]["sweeper"]["study_name"] != study:
        return "study_name: %r" % doc["hydra"]["sweeper"]["study_name"]
    if sorted(doc["hydra"]["sweeper"]["params"]) != ["batch", "lr", "opt"]:
        return "params: %r" % doc["hydra"]["sweeper"]["params"]
    return ""


# ---- env ------------------------------------------------------------------------

def env_config(fixtures, value):
    with open(os.path.join(fixtures, "sweep", "config.yaml")) as f:
        cfg = yaml.safe_load(f)
    cfg["recommendations"]["transformer"]["env"]["OMP_PLACES"] = value
    return yaml.safe_dump(cfg)


def env(rigtune, fixtures):
    d = tempfile.mkdtemp()
    bad = []
    values = [s for s in hostile_strings() if "\x00" not in s] + ["x" * 600 + "'" + "y" * 600]
    for s in values:
        with open(os.path.join(d, "cfg.yaml"), "w") as f:
            f.write(env_config(fixtures, s))
        r = run([rigtune, "env", "--config", "cfg.yaml", "--workload", "transformer"], cwd=d)
        if r.returncode:
            bad.append((s, "exit %d: %s" % (r.returncode, r.stderr)))
            continue
        syntax = run(["sh", "-n"], input=r.stdout, cwd=d)
        back = run(["sh", "-c", 'eval "$1"; printf %s "$OMP_PLACES"', "sh", r.stdout],
                   cwd=d)
        if syntax.returncode or back.stdout.decode("utf-8", "surrogateescape") != s:
            bad.append((s, "sh -n %d, eval gave %r" % (syntax.returncode, back.stdout)))
    check(not bad and no_canary(d), "env: %d values (hostile, and one of 1201 characters) "
          "pass sh -n and come back whole from eval, nothing runs" % len(values),
          "\n".join("%r: %s" % b for b in bad[:6]))
    shutil.rmtree(d)


# ---- page -----------------------------------------------------------------------

class PageReader(html.parser.HTMLParser):
    """What a browser would run or fetch, and the page's text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.active, self.text, self.metas = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "object", "embed", "base", "link", "form"):
            self.active.append("<%s>" % tag)
        if tag == "meta":
            self.metas.append(dict(attrs))
        for name, value in attrs:
            if name.startswith("on") or (value or "").strip().lower().startswith(
                    ("javascript:", "data:text/html")):
                self.active.append("%s=%r on <%s>" % (name, value, tag))

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)


def page_config(fixtures, four):
    """The fixture with four hostile strings in its host, CPU, OS and reason, and its roles."""
    with open(os.path.join(fixtures, "report", "gpubox.yaml")) as f:
        cfg = yaml.safe_load(f)
    m = cfg["machine"]
    m["hostname"] = "h" + four[0]
    m["cpu"]["model"] = "m" + four[1]
    for k, kind in enumerate(m["cpu"]["kinds"]):
        kind["role"] = ("r%d%s" % (k, four[k]))[:15]  # the page keeps 15 bytes of a role
    m["os"]["name"] = "o" + four[2]
    cfg["recommendations"]["transformer"]["reason"] = "why" + four[3]
    return yaml.safe_dump(cfg)


def page(rigtune, fixtures):
    d = tempfile.mkdtemp()
    bad, csp = [], True
    root = os.path.dirname(fixtures.rstrip("/"))
    strings = [s for s in hostile_strings() if "\x00" not in s]
    pages = [(strings + strings[:3])[i:i + 4] for i in range(0, len(strings), 4)]
    for four in pages:
        with open(os.path.join(d, "cfg.yaml"), "w") as f:
            f.write(page_config(fixtures, four))
        r = run([rigtune, "report", "--config", os.path.join(d, "cfg.yaml"), "-o",
                 os.path.join(d, "p.html")], cwd=os.path.dirname(root))
        if r.returncode:
            bad.append((four, "exit %d: %s" % (r.returncode, r.stderr[-300:])))
            continue
        reader = PageReader()
        reader.feed(open(os.path.join(d, "p.html"), encoding="utf-8", errors="replace").read())
        reader.close()
        text = "".join(reader.text)
        policy = [m.get("content", "") for m in reader.metas
                  if m.get("http-equiv", "").lower() == "content-security-policy"]
        csp = csp and len(policy) == 1 and "script-src 'none'" in policy[0]
        want = ["m" + four[1], "o" + four[2], "why" + four[3]]
        missing = [w for w in want if w.replace("\r\n", "\n").replace("\r", "\n") not in text]
        if reader.active or missing:
            bad.append((four, "runs %r; text missing %r" % (reader.active, missing)))
    check(not bad, "page: %d hostile strings in %d pages' roles, host, CPU, OS and reason: "
          "nothing a browser runs or fetches, the text back as written"
          % (len(strings), len(pages)),
          "\n".join("%r: %s" % b for b in bad[:6]))
    check(csp, "page: every page has one Content-Security-Policy with script-src 'none'")
    browser_blocks_scripts(d)
    shutil.rmtree(d)


def dom_of(path):
    """The DOM headless Chromium builds from the page, after its scripts (if any) ran."""
    r = run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
             "file://" + path], timeout=120)
    return r.stdout.decode("utf-8", "replace")


def browser_blocks_scripts(d):
    """A script slipped into the last page does not run in Chromium; without the policy it would."""
    global N
    if not shutil.which("chromium"):
        N += 1
        print("ok %d # SKIP no chromium (scripts/install-deps.sh test)" % N)
        return
    page = open(os.path.join(d, "p.html"), encoding="utf-8", errors="replace").read()
    ran = '<script>document.body.setAttribute("data-ran", "1")</script></body>'
    with open(os.path.join(d, "with.html"), "w", encoding="utf-8") as f:
        f.write(page.replace("</body>", ran))
    with open(os.path.join(d, "without.html"), "w", encoding="utf-8") as f:
        f.write("\n".join(line for line in page.replace("</body>", ran).split("\n")
                          if "Content-Security-Policy" not in line))
    blocked, control = dom_of(os.path.join(d, "with.html")), dom_of(os.path.join(d, "without.html"))
    check("<body" in blocked and 'data-ran="1"' not in blocked and 'data-ran="1"' in control,
          "page: Chromium runs no script on the page (its policy), and would without it",
          "with the policy: %r\nwithout: %r" % (blocked[-200:], control[-200:]))


def main():
    what = sys.argv[1]
    if what == "sweep":
        sweep(sys.argv[2], sys.argv[3], sys.argv[4])
    elif what == "page":
        page(sys.argv[2], sys.argv[3])
    elif what == "env":
        env(sys.argv[2], sys.argv[3])
    else:
        sys.exit("escape_check: unknown check " + what)


if __name__ == "__main__":
    main()

"""The `kgmem-diagnose/1` JSON report as dataclasses.

Field names and meanings are the schema's (kgmem-diagnose(1), JSON SCHEMA;
README "JSON"): sizes are integers in bytes, a value the input does not
state is None (never 0). Each object keeps the JSON it was read from in
`raw`, so keys added to the schema later stay reachable. Nothing here
computes a diagnosis: these classes only read what the binary wrote.
"""
import re
import subprocess
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

SCHEMA = "kgmem-diagnose/1"

# A verdict line of the text report: "PATH:LINE: error[CAUSE, CONFIDENCE]: ..."
_HEADLINE = re.compile(r"^\S.*?: (?:error|warning|info)\[")


@dataclass
class Location:
    """Where an incident's OOM message is: `path` (the input as named on
    the command line, "<stdin>" for standard input) and `line` (1-based),
    either None where unknown."""
    path: Optional[str]
    line: Optional[int]


@dataclass
class Device:
    """The device that ran out of memory: `type` (cuda, rocm, xpu, npu,
    mps, cpu, ...) and `index` (cuda:1 is 1), either None where unknown."""
    type: Optional[str]
    index: Optional[int]


@dataclass
class Budget:
    """The device's memory at the failure, every field in bytes (an int;
    None where the message does not state it): `capacity` = `free` +
    `allocated` (live tensors) + `cached_unused` (reserved by PyTorch's
    caching allocator but not in use) + `non_pytorch` (this process,
    outside PyTorch's allocator: the CUDA context, other libraries) +
    `other_processes` + `unaccounted`. The text report prints these as
    PyTorch does ("23.56 GiB": binary units). `split_uncertain`: the
    message leaves the CUDA context and other processes together in
    `unaccounted`; `consistent` is False when its numbers contradict each
    other."""
    capacity: Optional[int]
    free: Optional[int]
    allocated: Optional[int]
    cached_unused: Optional[int]
    non_pytorch: Optional[int]
    other_processes: Optional[int]
    unaccounted: Optional[int]
    split_uncertain: bool = False
    consistent: bool = True


@dataclass
class Remedy:
    """One thing to change. `title`: short; `instruction`: the one line the
    text report prints as `help:`, with your numbers; `env`: environment
    variables to set (name -> value); `set`: roles to values (e.g.
    {"eval_batch_size": 64}: counts, or sizes in bytes); `keys`: roles to
    the loaded config's own key names (only when a config names one);
    `code`: a code change; `caveat`: what it costs."""
    title: str
    instruction: Optional[str] = None
    env: Dict[str, str] = field(default_factory=dict)
    set: Dict[str, Any] = field(default_factory=dict)
    keys: Dict[str, str] = field(default_factory=dict)
    code: Optional[str] = None
    caveat: Optional[str] = None


@dataclass
class Finding:
    """A rule that fired on an incident: evidence for (`supports`) or
    against (`refutes`) a cause, with its `strength`; `title`, `message`
    and `evidence` (lines of arithmetic; sizes as PyTorch prints them) as
    the verbose text report shows them; `remedies` it proposes."""
    rule: str
    category: Optional[str]
    severity: Optional[str]
    supports: Optional[str]
    refutes: Optional[str]
    strength: Optional[str]
    title: Optional[str]
    message: Optional[str]
    evidence: List[str]
    remedies: List[Remedy]


@dataclass
class Hypothesis:
    """One cause of the differential, most probable first: `cause`, `p`
    (its posterior probability, 0 to 1), `confidence` (high, medium or low
    for the first; None for the others), `ruled_out`, `to_confirm` (what
    would settle it). `score` is `p` under its earlier name."""
    cause: str
    confidence: Optional[str]
    p: Optional[float]
    ruled_out: bool
    to_confirm: Optional[str]
    open: bool = False

    @property
    def score(self) -> Optional[float]:
        """The same as `p`."""
        return self.p


@dataclass
class Incident:
    """One out-of-memory incident. `kind`: oom, oom-warning (a failure the
    framework retried), oom-suspected, or oom-unrecognized (an
    out-of-memory line no grammar knows: the safety net); `severity`: error or warning;
    `cause` (None: undetermined) and `confidence` (high, medium, low);
    `budget` (Budget, bytes); `memory`: the message's sizes, each an int
    in bytes (requested_bytes, free_bytes, allocated_bytes, ...);
    `device`, `rank`, `step`, `epoch`, `phase`; `mode`: what the job was
    doing (train, eval, serve, load or unknown), which the remedies
    follow; `message`: the OOM message; `findings`, `differential`;
    `action`: the one remedy (the text report's `help:` line).
    str(incident) is its first two lines of the text report: the verdict
    and the action."""
    id: int
    kind: str
    family: Optional[str]
    framework: Optional[str]
    location: Location
    severity: str
    cause: Optional[str]
    confidence: Optional[str]
    budget: Optional[Budget]
    memory: Dict[str, Any]
    device: Optional[Device]
    rank: Optional[int]
    step: Optional[int]
    epoch: Optional[int]
    phase: Optional[str]
    message: Optional[str]
    findings: List[Finding]
    differential: List[Hypothesis]
    action: Optional[Remedy] = None
    mode: Optional[str] = None
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)
    _report: Optional["Report"] = field(repr=False, compare=False, default=None)

    @property
    def requested_bytes(self) -> Optional[int]:
        """The allocation that failed, in bytes (None: not stated)."""
        return self.memory.get("requested_bytes")

    @property
    def remedies(self) -> List[Remedy]:
        """Every remedy of the findings, in report order, each title once
        (the action among them)."""
        seen, out = set(), []
        for f in self.findings:
            for r in f.remedies:
                if r.title not in seen:
                    seen.add(r.title)
                    out.append(r)
        return out

    @property
    def patch(self) -> Dict[str, Any]:
        """The config changes the one action names: the config's own key
        (when a config was given) or the role, to its new value. The diffs
        of a whole config are Report.patches (--diff)."""
        if self.action is None:
            return {}
        return {self.action.keys.get(role, role): v for role, v in self.action.set.items()}

    def lines(self) -> List[str]:
        """This incident's lines of the text report (Report.text(), not
        wrapped): the verdict, `help:`, then the `=` evidence lines."""
        rep = self._report
        if rep is None:
            raise ValueError("this Incident was not returned by diagnose(): no text report")
        blocks = rep._blocks()
        k = next(k for k, inc in enumerate(rep.incidents) if inc is self)
        return blocks[k] if k < len(blocks) else []

    def __str__(self) -> str:
        try:
            return "\n".join(self.lines()[:2])
        except Exception:  # no report to render: the JSON's own words
            where = "%s:%s: " % (self.location.path, self.location.line) if self.location.path else ""
            head = "%s%s[%s%s]: %s" % (where, self.severity, self.cause or "undetermined",
                                       ", " + self.confidence if self.confidence else "",
                                       (self.message or "").split(". ")[0])
            if self.action is not None and self.action.instruction:
                head += "\n  help: " + self.action.instruction
            return head


@dataclass
class Input:
    """One input the binary read: `path`, `kind` (log, config, snapshot,
    memory_stats, memory_summary), `bytes` (its size in bytes), `gzip`."""
    path: str
    kind: str
    bytes: Optional[int]
    gzip: bool


@dataclass
class Patch:
    """A suggested config change as a unified diff (--diff/--apply):
    `path` (the config), `diff` (its text, with a/ and b/ headers for
    `patch -p1`), `applied` (written by --apply)."""
    path: str
    diff: str
    applied: bool


@dataclass
class Summary:
    """Counts of incidents by their severity (`incidents`, `errors`,
    `warnings`, `infos`), the rank of the earliest incident that names one
    (`first_failed_rank`) and torchelastic's root-cause rank."""
    incidents: int
    errors: int
    warnings: int
    infos: int
    first_failed_rank: Optional[int]
    root_cause_rank: Optional[int]


@dataclass
class Report:
    """What diagnose() returns: the `kgmem-diagnose/1` JSON report.
    `inputs`, `incidents` (most recent last, as in the log), `patches`,
    `summary`, `notes` (about the input: how it was read, what was
    skipped), `raw` (the JSON itself). Sizes are ints in bytes.
    text() (and str(report)) is the binary's text report of the same
    inputs."""
    schema: str
    version: str
    inputs: List[Input]
    incidents: List[Incident]
    patches: List[Patch]
    summary: Summary
    notes: List[Any]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)
    _source: Any = field(repr=False, compare=False, default=None)
    _texts: Dict[Any, str] = field(repr=False, compare=False, default_factory=dict)

    def text(self, *, width: int = 0, verbose: bool = False) -> str:
        """The text report of the same inputs, as the command line prints
        it (sizes as PyTorch prints them, "20.00 GiB"): a verdict line per
        incident, its `help:` action, `=` evidence lines, notes and a count.
        width: wrap at that many columns (0: never); verbose: every finding
        (--verbose). Runs the binary again on what diagnose() was given.
        Raises ValueError for a Report that diagnose() did not return."""
        key = (width, verbose)
        if key not in self._texts:
            if self._source is None:
                raise ValueError("this Report was not returned by diagnose(): no inputs to render")
            cmd, operands, data, timeout = self._source
            cmd = [a for a in cmd]
            k = cmd.index("--format")
            cmd[k:k + 2] = ["--format", "text", "--width", str(int(width))]
            if verbose:
                cmd.append("--verbose")
            r = subprocess.run(cmd + ["--"] + operands, input=data if data is not None else b"",
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
            if r.returncode not in (0, 1):
                raise ValueError(r.stderr.decode("utf-8", "replace").strip()
                                 or "kgmem-diagnose exited with status %d" % r.returncode)
            self._texts[key] = r.stdout.decode("utf-8", "replace")
        return self._texts[key]

    def __str__(self) -> str:
        return self.text()

    def _blocks(self) -> List[List[str]]:
        """The text report's lines, one list per incident (in order): its
        verdict line and the indented lines under it."""
        blocks: List[List[str]] = []
        cur: Optional[List[str]] = None
        for ln in self.text().splitlines():
            if _HEADLINE.match(ln):
                cur = [ln]
                blocks.append(cur)
            elif cur is not None and ln.startswith(" "):
                cur.append(ln)
            else:
                cur = None
        return blocks


def _remedy(d: Dict[str, Any]) -> Remedy:
    return Remedy(title=d.get("title", ""), instruction=d.get("instruction"),
                  env=d.get("env") or {}, set=d.get("set") or {},
                  keys=d.get("keys") or {}, code=d.get("code"), caveat=d.get("caveat"))


def _finding(d: Dict[str, Any]) -> Finding:
    return Finding(rule=d.get("rule", ""), category=d.get("category"),
                   severity=d.get("severity"), supports=d.get("supports"),
                   refutes=d.get("refutes"), strength=d.get("strength"),
                   title=d.get("title"), message=d.get("message"),
                   evidence=list(d.get("evidence") or []),
                   remedies=[_remedy(r) for r in d.get("remedies") or []])


def _action(d: Dict[str, Any], findings: List[Finding]) -> Optional[Remedy]:
    """The remedy JSON "action" names (by its finding's rule and title)."""
    a = d.get("action")
    if not a:
        return None
    for f in findings:
        if f.rule == a.get("rule"):
            for r in f.remedies:
                if r.title == a.get("title"):
                    return r
    return Remedy(title=a.get("title") or "", instruction=a.get("instruction"))


def _incident(d: Dict[str, Any]) -> Incident:
    loc = d.get("location") or {}
    findings = [_finding(f) for f in d.get("findings") or []]
    b = d.get("budget")
    dev = d.get("device")
    budget = None
    if b is not None:
        budget = Budget(**{k: b.get(k) for k in ("capacity", "free", "allocated", "cached_unused",
                                                  "non_pytorch", "other_processes", "unaccounted")},
                        split_uncertain=bool(b.get("split_uncertain", False)),
                        consistent=bool(b.get("consistent", True)))
    return Incident(
        id=d.get("id", 0), kind=d.get("kind", ""), family=d.get("family"),
        framework=d.get("framework"),
        location=Location(loc.get("path"), loc.get("line")),
        severity=d.get("severity", ""), cause=d.get("cause"), confidence=d.get("confidence"),
        budget=budget, memory=d.get("memory") or {},
        device=Device(dev.get("type"), dev.get("index")) if dev else None,
        rank=d.get("rank"), step=d.get("step"), epoch=d.get("epoch"), phase=d.get("phase"),
        message=d.get("message"),
        findings=findings, action=_action(d, findings), mode=d.get("mode"),
        differential=[Hypothesis(cause=h.get("cause", ""), confidence=h.get("confidence"),
                                 p=h.get("p"), ruled_out=bool(h.get("ruled_out")),
                                 to_confirm=h.get("to_confirm"), open=bool(h.get("open")))
                      for h in d.get("differential") or []],
        raw=d)


def from_json(d: Dict[str, Any]) -> Report:
    """A Report from a parsed `kgmem-diagnose --format json` document.
    Raises ValueError when it is not schema kgmem-diagnose/1."""
    if not isinstance(d, dict) or d.get("schema") != SCHEMA:
        raise ValueError("not a %s report (schema %r)"
                         % (SCHEMA, d.get("schema") if isinstance(d, dict) else None))
    s = d.get("summary") or {}
    rep = Report(
        schema=d["schema"], version=d.get("version", ""),
        inputs=[Input(path=i.get("path", ""), kind=i.get("kind", ""), bytes=i.get("bytes"),
                      gzip=bool(i.get("gzip"))) for i in d.get("inputs") or []],
        incidents=[_incident(i) for i in d.get("incidents") or []],
        patches=[Patch(path=p.get("path", ""), diff=p.get("diff", ""),
                       applied=bool(p.get("applied"))) for p in d.get("patches") or []],
        summary=Summary(**{k: s.get(k, 0 if k in ("incidents", "errors", "warnings", "infos") else None)
                           for k in ("incidents", "errors", "warnings", "infos",
                                     "first_failed_rank", "root_cause_rank")}),
        notes=list(d.get("notes") or []),
        raw=d)
    for inc in rep.incidents:
        inc._report = rep
    return rep

"""The `kgmem-diagnose/1` JSON report as dataclasses.

Field names and meanings are the schema's (kgmem-diagnose(1), JSON SCHEMA;
README "JSON"): sizes are integers in bytes, a value the input does not
state is None (never 0). Each object keeps the JSON it was read from in
`raw`, so keys added to the schema later stay reachable. Nothing here
computes a diagnosis: these classes only read what the binary wrote.
"""
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

SCHEMA = "kgmem-diagnose/1"


@dataclass
class Location:
    path: Optional[str]
    line: Optional[int]


@dataclass
class Device:
    type: Optional[str]   # cuda, rocm, xpu, npu, mps, cpu, ...
    index: Optional[int]


@dataclass
class Budget:
    """The device at the failure, in bytes (None where unknown)."""
    capacity: Optional[int]
    free: Optional[int]
    allocated: Optional[int]
    cached_unused: Optional[int]
    non_pytorch: Optional[int]       # this process, outside PyTorch's allocator
    other_processes: Optional[int]
    unaccounted: Optional[int]
    split_uncertain: bool = False
    consistent: bool = True


@dataclass
class Remedy:
    title: str
    instruction: Optional[str] = None  # the one line the text report prints as help:
    env: Dict[str, str] = field(default_factory=dict)
    set: Dict[str, Any] = field(default_factory=dict)    # role -> value
    keys: Dict[str, str] = field(default_factory=dict)   # role -> the config's own key
    code: Optional[str] = None
    caveat: Optional[str] = None


@dataclass
class Finding:
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
    """One line of the differential, most likely first."""
    cause: str
    confidence: Optional[str]
    score: Optional[float]
    ruled_out: bool
    to_confirm: Optional[str]


@dataclass
class Incident:
    id: int
    kind: str                  # oom, oom-warning, oom-suspected, oom-unrecognized
    family: Optional[str]
    framework: Optional[str]
    location: Location
    severity: str              # error or warning
    cause: Optional[str]       # None: undetermined
    confidence: Optional[str]  # high, medium, low or None
    budget: Optional[Budget]
    memory: Dict[str, Any]     # requested_bytes, free_bytes, ... (bytes)
    device: Optional[Device]
    rank: Optional[int]
    step: Optional[int]
    epoch: Optional[int]
    phase: Optional[str]
    message: Optional[str]
    findings: List[Finding]
    differential: List[Hypothesis]
    action: Optional[Remedy] = None   # the one action (JSON "action"; the text's help: line)
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def requested_bytes(self) -> Optional[int]:
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


@dataclass
class Input:
    path: str
    kind: str                  # log, config, snapshot, ...
    bytes: Optional[int]
    gzip: bool


@dataclass
class Patch:
    """A suggested config change as a unified diff (--diff/--apply)."""
    path: str
    diff: str
    applied: bool


@dataclass
class Summary:
    incidents: int
    errors: int
    warnings: int
    infos: int
    first_failed_rank: Optional[int]
    root_cause_rank: Optional[int]


@dataclass
class Report:
    schema: str
    version: str
    inputs: List[Input]
    incidents: List[Incident]
    patches: List[Patch]
    summary: Summary
    notes: List[Any]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)


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
        findings=findings, action=_action(d, findings),
        differential=[Hypothesis(cause=h.get("cause", ""), confidence=h.get("confidence"),
                                 score=h.get("score"), ruled_out=bool(h.get("ruled_out")),
                                 to_confirm=h.get("to_confirm"))
                      for h in d.get("differential") or []],
        raw=d)


def from_json(d: Dict[str, Any]) -> Report:
    """A Report from a parsed `kgmem-diagnose --format json` document.
    Raises ValueError when it is not schema kgmem-diagnose/1."""
    if not isinstance(d, dict) or d.get("schema") != SCHEMA:
        raise ValueError("not a %s report (schema %r)"
                         % (SCHEMA, d.get("schema") if isinstance(d, dict) else None))
    s = d.get("summary") or {}
    return Report(
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

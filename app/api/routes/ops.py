from fastapi import APIRouter, HTTPException

from app.api.models import ImplementationInfo, MismatchClassInfo, OpDetail, OpSummary, PortInfo, RuleInfo
from app.core.dtypes import describe
from app.core.registry import OpSpec, Port
from app.ops import BY_NAME, REGISTRY

router = APIRouter(prefix="/ops", tags=["ops"])


def _summary(spec: OpSpec) -> dict:
    return {"kind": spec.kind, "aliases": list(spec.aliases), "source": spec.source, "summary": spec.summary}


def _port(port: Port) -> PortInfo:
    return PortInfo(
        name=port.name,
        dtypes=describe(port.dtypes).split(", "),
        description=port.description,
        optional=port.optional,
        variadic=port.variadic,
    )


@router.get("", response_model=list[OpSummary], summary="Every op: kind, aliases, source spec, summary")
async def list_ops() -> list[dict]:
    return [_summary(spec) for spec in REGISTRY.values()]


@router.get(
    "/{kind}", response_model=OpDetail, summary="One op: attributes, ports, dtypes, rules, examples, notes"
)
async def get_op(kind: str) -> OpDetail:
    spec = BY_NAME.get(kind)
    if spec is None:
        raise HTTPException(404, f"unknown kind {kind!r}; known kinds: {', '.join(BY_NAME)}")
    attrs_model = spec.descriptor.model_fields["attrs"].annotation
    return OpDetail(
        **_summary(spec),
        attributes=attrs_model.model_json_schema(),  # type: ignore[union-attr]
        inputs=[_port(p) for p in spec.inputs],
        outputs=[_port(p) for p in spec.outputs],
        dtypes=list(spec.dtype_table),
        rules=[
            RuleInfo(id=r.id, statement=r.statement, spec=r.spec, severity=r.severity, status=r.status)
            for r in spec.all_rules
        ],
        examples=list(spec.examples),
        notes=list(spec.notes),
        mismatch_classes=[
            MismatchClassInfo(id=c.id, description=c.description) for c in spec.all_mismatch_classes
        ],
        implementations=[ImplementationInfo(name=i.name, evidence=i.evidence) for i in spec.implementations],
    )

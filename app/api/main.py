from app.api.routes import check, graphs, ops, rules, verify

V1_ROUTERS = (
    check.router,
    ops.router,
    verify.router,
    graphs.router,
    rules.router,
)  # check first: its routes are the hot ones

from app.api.routes import check, graphs, ops, verify

V1_ROUTERS = (
    check.router,
    ops.router,
    verify.router,
    graphs.router,
)  # check first: its routes are the hot ones

from app.api.routes import check, ops, verify

V1_ROUTERS = (check.router, ops.router, verify.router)  # check first: its routes are the hot ones

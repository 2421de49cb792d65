from app.api.routes import check, ops

V1_ROUTERS = (check.router, ops.router)  # check first: its routes are the hot ones

from app.api.routes import check, graphs, ops

V1_ROUTERS = (check.router, ops.router, graphs.router)  # check first: its routes are the hot ones

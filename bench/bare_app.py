"""The baseline of bench_http.py: a bare FastAPI app that reads each request's body and answers the bytes
opspec answered to that request, on the same routes, under the same uvicorn. What opspec costs beyond
it is the checking, the middleware and the encoding.

    python bench/bare_app.py --port 8001 --answers answers.json   # {"/v1/validate": "<answer text>", ...}
"""

from __future__ import annotations

import argparse
import json

import uvicorn
from fastapi import FastAPI, Request, Response


def make_app(answers: dict[str, str]) -> FastAPI:
    app = FastAPI()

    def route(answer: bytes):
        async def handler(request: Request) -> Response:
            # Read the body, as any POST handler must: a route that ignored it could answer before the
            # body's TCP segment is even read, and the ratio would measure that instead of opspec.
            await request.body()
            return Response(answer, media_type="application/json")

        return handler

    for path, text in answers.items():
        app.add_api_route(path, route(text.encode()), methods=["POST"])

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--answers", required=True)
    args = parser.parse_args()
    with open(args.answers) as file:
        answers = json.load(file)
    uvicorn.run(make_app(answers), host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()

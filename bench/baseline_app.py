"""The ceiling for bench/http_bench.py: bare Starlette + PyMongo's async client doing the same
database work as fw's resource API, with no authentication, permissions or validation."""

from __future__ import annotations

import gc
import os
import secrets
from datetime import datetime
from typing import Any

import orjson
from pymongo import AsyncMongoClient
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

client: AsyncMongoClient[Any] = AsyncMongoClient(os.environ["BENCH_MONGO_URL"])
coll = client[os.environ["BENCH_DB"]]["bench_record"]


def out(data: Any, status: int = 200) -> Response:
    return Response(orjson.dumps({"data": data}), status, media_type="application/json")


def doc(raw: dict[str, Any]) -> dict[str, Any]:
    raw["name"] = raw.pop("_id")
    return {k: v for k, v in raw.items() if v is not None}


async def get_one(request: Request) -> Response:
    raw = await coll.find_one({"_id": request.path_params["name"]})
    return out(doc(raw)) if raw else out(None, 404)


async def get_list(request: Request) -> Response:
    filters = orjson.loads(request.query_params["filters"])
    query = {f: ({"$eq": v} if op == "=" else {"$gte": v}) for f, op, v in filters}
    cursor = coll.find(query, {"_id": 1, "title": 1, "status": 1, "posted": 1, "qty": 1},
                       sort=[("posted", -1), ("_id", -1)], limit=20)
    return out([doc(r) for r in await cursor.to_list(None)])


async def create(request: Request) -> Response:
    body = orjson.loads(await request.body())
    now = datetime.now().isoformat(sep=" ", timespec="microseconds")
    record = {"_id": secrets.token_hex(5), **body, "owner": "bench", "creation": now, "modified": now,
              "modified_by": "bench", "docstatus": 0, "idx": 0}
    await coll.insert_one(record)
    return out(doc(record))


async def update(request: Request) -> Response:
    name = request.path_params["name"]
    body = orjson.loads(await request.body())
    current = await coll.find_one({"_id": name})
    if current is None:
        return out(None, 404)
    now = datetime.now().isoformat(sep=" ", timespec="microseconds")
    change = {**body, "modified": now, "modified_by": "bench"}
    await coll.update_one({"_id": name, "modified": current["modified"]}, {"$set": change})
    current.update(change)
    return out(doc(current))


async def ping(request: Request) -> Response:
    return Response(b'{"message":"pong"}', media_type="application/json")


if os.environ.get("BENCH_TUNE_GC"):  # `http_bench.py --tune-baseline-gc`: the same GC tuning as fw's serve
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, *gc.get_threshold()[1:])

app = Starlette(routes=[
    Route("/api/method/ping", ping),
    Route("/api/resource/Bench Record", get_list, methods=["GET"]),
    Route("/api/resource/Bench Record", create, methods=["POST"]),
    Route("/api/resource/Bench Record/{name}", get_one, methods=["GET"]),
    Route("/api/resource/Bench Record/{name}", update, methods=["PUT"]),
])

"""The bare apps of bench/peer_bench.py: Starlette + PyMongo's async client on the `bench_score`
collection, no authentication, permissions or validation.

BENCH_CALLS=one   one driver call per request (an update is one `find_one_and_update`)
BENCH_CALLS=same  the database calls fw makes (an update reads the document, then writes it on the
                  `modified` it read), so the gap to fw is what fw does in Python
"""

from __future__ import annotations

import os
import secrets
from datetime import datetime
from typing import Any

import orjson
from pymongo import AsyncMongoClient, ReturnDocument
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

client: AsyncMongoClient[Any] = AsyncMongoClient(os.environ["BENCH_MONGO_URL"])
coll = client[os.environ["BENCH_DB"]]["bench_score"]
SAME_CALLS = os.environ.get("BENCH_CALLS", "one") == "same"


def out(data: Any, status: int = 200) -> Response:
    return Response(orjson.dumps({"data": data}), status, media_type="application/json")


def doc(raw: dict[str, Any]) -> dict[str, Any]:
    raw["name"] = raw.pop("_id")
    return raw


def now() -> str:
    return datetime.now().isoformat(sep=" ", timespec="microseconds")


async def get_one(request: Request) -> Response:
    raw = await coll.find_one({"_id": request.path_params["name"]})
    return out(doc(raw)) if raw else out(None, 404)


async def get_list(request: Request) -> Response:
    filters = orjson.loads(request.query_params["filters"])
    query = {f: ({"$eq": v} if op == "=" else {"$gt": v}) for f, op, v in filters}
    rows = await coll.find(query, sort=[("value", -1)], limit=20).to_list(None)
    return out([doc(r) for r in rows])


async def create(request: Request) -> Response:
    stamp = now()
    record = {"_id": secrets.token_hex(5), **orjson.loads(await request.body()), "owner": "bench",
              "creation": stamp, "modified": stamp, "modified_by": "bench", "docstatus": 0, "idx": 0}
    await coll.insert_one(record)
    return out(doc(record))


async def update(request: Request) -> Response:
    name = request.path_params["name"]
    change = {**orjson.loads(await request.body()), "modified": now(), "modified_by": "bench"}
    if not SAME_CALLS:
        raw = await coll.find_one_and_update({"_id": name}, {"$set": change}, return_document=ReturnDocument.AFTER)
        return out(doc(raw)) if raw else out(None, 404)
    current = await coll.find_one({"_id": name})
    if current is None:
        return out(None, 404)
    await coll.update_one({"_id": name, "modified": current["modified"]}, {"$set": change})
    current.update(change)
    return out(doc(current))


async def ping(request: Request) -> Response:
    return Response(b'{"message":"pong"}', media_type="application/json")


app = Starlette(routes=[
    Route("/api/method/ping", ping),
    Route("/api/resource/Bench Score", get_list, methods=["GET"]),
    Route("/api/resource/Bench Score", create, methods=["POST"]),
    Route("/api/resource/Bench Score/{name}", get_one, methods=["GET"]),
    Route("/api/resource/Bench Score/{name}", update, methods=["PUT"]),
])

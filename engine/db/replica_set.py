"""Replica-set bootstrap of a private mongod (used by engine.mongod.embedded)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pymongo
from pymongo import errors as driver_errors

from engine import exceptions as exc

ALREADY_INITIALIZED = 23  # MongoDB's error code


def ensure_replica_set(port: int, *, durable: bool, timeout: float = 60.0,
                       alive: Callable[[], bool] | None = None) -> None:
    """Initiate (or re-point, after a port change) a single-node replica set and wait for primary.
    `alive` says whether the mongod process still runs: once it does not, waiting stops at once."""
    host = f"127.0.0.1:{port}"
    client: pymongo.MongoClient[Any] = pymongo.MongoClient(
        f"mongodb://{host}/?directConnection=true", serverSelectionTimeoutMS=2000
    )
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                client.admin.command("ping")
                break
            except driver_errors.PyMongoError:
                if alive is not None and not alive():
                    raise exc.ConfigurationError(f"mongod on {host} exited") from None
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        config = None
        while config is None:
            try:
                config = client.admin.command("replSetGetConfig")["config"]
            except driver_errors.OperationFailure:
                try:
                    client.admin.command("replSetInitiate", {
                        "_id": "rs0", "members": [{"_id": 0, "host": host}],
                        "writeConcernMajorityJournalDefault": durable,
                    })
                    break
                except driver_errors.OperationFailure as e:
                    # a stored config it has not loaded yet (after a port change mongod first checks
                    # whether the old address is itself): wait for it
                    if e.code != ALREADY_INITIALIZED or time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
        if config is not None and config["members"][0]["host"] != host:
            config["members"][0]["host"] = host
            config["version"] += 1
            client.admin.command("replSetReconfig", config, force=True)
        while not client.admin.command("hello").get("isWritablePrimary"):
            if time.monotonic() > deadline:
                raise exc.ConfigurationError(f"mongod on {host} did not become primary")
            time.sleep(0.05)
    finally:
        client.close()

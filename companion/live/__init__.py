"""Live push: a channel per table (:mod:`.channel`), its streams (:mod:`.stream`), the
deltas between two views (:mod:`.delta`) and the fan-out between processes over
PostgreSQL's LISTEN/NOTIFY (:mod:`.fanout`). The names below are the package's face.

May import: ``play`` (to load a table), ``table``, the edge, the store, the engine.
"""

from .channel import (
    DEVICES_PER_CLIENT,
    STREAMS_PER_CLIENT,
    STREAMS_PER_TABLE,
    Channel,
    Hub,
    add_waker,
    delta_json,
    hub,
    publish,
    remove_waker,
)
from .fanout import NOTIFY_CHANNEL, WORKER, PgFanout, close, init_app
from .stream import CONNECTED, KEEPALIVE, Subscription, bp, proof, proof_of, stream_response

__all__ = ["CONNECTED", "DEVICES_PER_CLIENT", "KEEPALIVE", "NOTIFY_CHANNEL",
           "STREAMS_PER_CLIENT", "STREAMS_PER_TABLE", "WORKER", "Channel", "Hub", "PgFanout",
           "Subscription", "add_waker", "bp", "close", "delta_json", "hub", "init_app", "proof",
           "proof_of", "publish", "remove_waker", "stream_response"]

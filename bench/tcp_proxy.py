"""A TCP forwarder on a private port that a bench can cut, so the app loses a server nobody else uses.

``bench.faults`` points the app's ``DATABASE_URL`` at this proxy instead of PostgreSQL's port.
Taking PostgreSQL itself down would take down every other database on the shared cluster; cutting
the app's path to it gives the app the same view:

* ``refuse()``: the listener is closed and every forwarded connection is reset, as when the server
  is stopped or restarting (connects fail at once with ``connection refused``);
* ``stall()``: connections are accepted but no byte moves either way, as in a network partition
  (a connect or a query waits until something gives up); ``resume()`` lets the bytes through again.

The forwarding runs on an asyncio loop in a daemon thread of the bench process; every call from the
bench's thread waits at most ``CALL_TIMEOUT`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any

CALL_TIMEOUT = 10.0
CHUNK = 65536


class TcpProxy:
    """127.0.0.1:``port`` → ``target``, with ``refuse``/``restore`` and ``stall``/``resume``."""

    def __init__(self, target: tuple[str, int], port: int) -> None:
        self.target = target
        self.port = port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="tcp-proxy", daemon=True)
        self.server: asyncio.Server | None = None
        self.transports: set[asyncio.WriteTransport] = set()
        self.flowing = asyncio.Event()
        self.connections = 0  # forwarded so far, for the report

    # ------------------------------------------------------------------ called from the bench

    def start(self) -> None:
        self.thread.start()
        self._call(self._open())

    def refuse(self) -> None:
        """Stop listening and reset every forwarded connection."""
        self._call(self._refuse())

    def restore(self) -> None:
        """Listen again (after ``refuse``)."""
        self._call(self._open())

    def stall(self) -> None:
        """Keep accepting, but move no bytes until ``resume``."""
        self.loop.call_soon_threadsafe(self.flowing.clear)

    def resume(self) -> None:
        self.loop.call_soon_threadsafe(self.flowing.set)

    def close(self) -> None:
        """Reset everything and stop the loop's thread (bounded; safe to call twice)."""
        if not self.thread.is_alive():
            return
        with contextlib.suppress(Exception):
            self._call(self._shutdown())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=CALL_TIMEOUT)

    def _call(self, coroutine: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=CALL_TIMEOUT)

    # ------------------------------------------------------------------ on the loop

    async def _open(self) -> None:
        self.flowing.set()
        if self.server is None:
            self.server = await asyncio.start_server(self._forward, "127.0.0.1", self.port)

    async def _refuse(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
        for transport in list(self.transports):
            transport.abort()  # an RST, as from a server that went away
        self.transports.clear()
        self.flowing.set()  # nothing is held back once the connections are gone

    async def _shutdown(self) -> None:
        await self._refuse()
        tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _forward(
        self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter
    ) -> None:
        self.transports.add(client_writer.transport)
        try:
            await self.flowing.wait()
            server_reader, server_writer = await asyncio.open_connection(*self.target)
        except OSError:
            client_writer.transport.abort()
            self.transports.discard(client_writer.transport)
            return
        self.transports.add(server_writer.transport)
        self.connections += 1
        try:
            await asyncio.gather(
                self._pipe(client_reader, server_writer),
                self._pipe(server_reader, client_writer),
                return_exceptions=True,
            )
        finally:
            for writer in (client_writer, server_writer):
                writer.transport.abort()
                self.transports.discard(writer.transport)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One direction; when either side closes, both connections close (as PostgreSQL's would)."""
        try:
            while data := await reader.read(CHUNK):
                await self.flowing.wait()
                writer.write(data)
                await writer.drain()
        finally:
            writer.transport.abort()

"""A WebSocket server written with the `websockets` package, for
loadgen's tests: a peer loadgen's client was not written against.

    python echo_server.py MODE [N]

MODE echo: every message back as it came. other: every message answered
with a different one. close: echo, and after N messages on a connection
close it with 1011. reset: echo N - 1 messages, then reset the TCP
connection (SO_LINGER 0) without a close frame. silent: read messages and
answer none.

Prints its port on the first line once it listens.
"""

import asyncio
import socket
import struct
import sys

from websockets.asyncio.server import serve

MODE = sys.argv[1]
LIMIT = int(sys.argv[2]) if len(sys.argv) > 2 else 0


async def handler(ws):
    count = 0
    async for message in ws:
        count += 1
        if MODE == "silent":
            continue
        if MODE == "other":
            await ws.send("not what you sent")
        elif MODE == "close" and count >= LIMIT:
            await ws.send(message)
            await ws.close(1011, "enough")
            return
        elif MODE == "reset" and count >= LIMIT:
            sock = ws.transport.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            ws.transport.abort()
            return
        else:
            await ws.send(message)


async def main():
    async with serve(handler, "127.0.0.1", 0, compression=None, max_size=1 << 20) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Future()


asyncio.run(main())

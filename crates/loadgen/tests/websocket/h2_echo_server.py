"""A WebSocket over HTTP/2 server (RFC 8441) for loadgen's tests, made of
the `h2` package (HTTP/2) and the sans-IO protocol of the `websockets`
package (frames): peers loadgen's client was not written against.

    python h2_echo_server.py MODE [N]

MODE echo: every message back as it came. close: echo, and after N
messages on a socket close it with 1011 and end the stream. reset: echo
N - 1 messages, then reset the socket's stream (RST_STREAM CANCEL) without
a close frame. Serves h2c with prior knowledge; every extended CONNECT
with :protocol websocket opens a socket, anything else gets 400.

Prints its port on the first line once it listens.
"""

import asyncio
import sys

import h2.config
import h2.connection
import h2.events
import h2.settings
from websockets.frames import Opcode
from websockets.protocol import Protocol, Side

MODE = sys.argv[1]
LIMIT = int(sys.argv[2]) if len(sys.argv) > 2 else 0
CANCEL = 0x8


class Socket:
    def __init__(self):
        self.protocol = Protocol(Side.SERVER, max_size=1 << 20)
        self.messages = 0


def answer(conn, sockets, stream_id, socket, data):
    """Feeds the stream's bytes to the socket; queues what it answers."""
    socket.protocol.receive_data(data)
    for frame in socket.protocol.events_received():
        if frame.opcode not in (Opcode.TEXT, Opcode.BINARY):
            continue
        socket.messages += 1
        if MODE == "reset" and socket.messages >= LIMIT:
            conn.reset_stream(stream_id, error_code=CANCEL)
            del sockets[stream_id]
            return
        if frame.opcode == Opcode.TEXT:
            socket.protocol.send_text(frame.data)
        else:
            socket.protocol.send_binary(frame.data)
        if MODE == "close" and socket.messages >= LIMIT:
            socket.protocol.send_close(1011, "enough")
    flush(conn, sockets, stream_id, socket)


def flush(conn, sockets, stream_id, socket):
    for chunk in socket.protocol.data_to_send():
        if chunk:
            conn.send_data(stream_id, chunk)
        else:
            # The protocol is done with the socket: end the stream.
            conn.end_stream(stream_id)
            del sockets[stream_id]
            return


async def serve_connection(reader, writer):
    conn = h2.connection.H2Connection(
        h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
    )
    conn.local_settings = h2.settings.Settings(
        client=False,
        initial_values={h2.settings.SettingCodes.ENABLE_CONNECT_PROTOCOL: 1},
    )
    conn.initiate_connection()
    writer.write(conn.data_to_send())
    sockets = {}
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    headers = dict(event.headers)
                    if headers.get(":method") == "CONNECT" and headers.get(":protocol") == "websocket":
                        conn.send_headers(event.stream_id, [(":status", "200")])
                        sockets[event.stream_id] = Socket()
                    else:
                        conn.send_headers(event.stream_id, [(":status", "400")], end_stream=True)
                elif isinstance(event, h2.events.DataReceived):
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    socket = sockets.get(event.stream_id)
                    if socket is not None:
                        answer(conn, sockets, event.stream_id, socket, event.data)
                elif isinstance(event, h2.events.StreamEnded):
                    socket = sockets.get(event.stream_id)
                    if socket is not None:
                        socket.protocol.receive_eof()
                        flush(conn, sockets, event.stream_id, socket)
                elif isinstance(event, h2.events.StreamReset):
                    sockets.pop(event.stream_id, None)
                elif isinstance(event, h2.events.ConnectionTerminated):
                    return
            writer.write(conn.data_to_send())
            await writer.drain()
    except (ConnectionError, h2.exceptions.ProtocolError):
        pass
    finally:
        writer.close()


async def main():
    server = await asyncio.start_server(serve_connection, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())

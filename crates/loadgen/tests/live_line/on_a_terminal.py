"""Runs a command with its standard error on a pseudo-terminal 200 columns
wide, as a user's terminal would be, and prints what it drew there; exits
with the command's status."""

import fcntl
import os
import struct
import subprocess
import sys
import termios

master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
child = subprocess.Popen(
    sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave
)
os.close(slave)
drawn = bytearray()
while True:
    try:
        data = os.read(master, 65536)
    except OSError:
        # EIO: every writer of the terminal has closed it.
        break
    if not data:
        break
    drawn += data
sys.stdout.buffer.write(drawn)
sys.exit(child.wait())

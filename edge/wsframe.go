package edge

import (
	"errors"
	"net"
)

// errMessageTooBig ends a websocket whose client sent a message over the cap.
var errMessageTooBig = errors.New("websocket message larger than --max-ws-message-bytes")

// frameLimitConn caps the size of the messages a websocket client sends. It reads the frames'
// headers (RFC 6455 §5.2) as the bytes pass and fails the read — which closes the socket — as
// soon as a message's payload, summed over its continuation frames, passes max, before the
// websocket library buffers it. Control frames (at most 125 bytes each) do not count.
type frameLimitConn struct {
	net.Conn
	max uint64

	hdr  [14]byte
	hdrN int
	// remaining is what is left of the current frame's payload; inFrame says a header was read.
	remaining uint64
	inFrame   bool
	msg       uint64
	err       error
}

func (c *frameLimitConn) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.Conn.Read(p)
	if serr := c.scan(p[:n]); serr != nil {
		c.err = serr
		return 0, serr
	}
	return n, err
}

// scan follows the frames through b.
func (c *frameLimitConn) scan(b []byte) error {
	for len(b) > 0 {
		if c.inFrame {
			k := uint64(len(b))
			if k > c.remaining {
				k = c.remaining
			}
			c.remaining -= k
			b = b[k:]
			if c.remaining == 0 {
				c.inFrame = false
			}
			continue
		}
		// Gather the header: 2 bytes, then the extended length and the mask.
		c.hdr[c.hdrN] = b[0]
		c.hdrN++
		b = b[1:]
		if c.hdrN < 2 {
			continue
		}
		need := 2
		switch c.hdr[1] & 0x7f {
		case 126:
			need += 2
		case 127:
			need += 8
		}
		if c.hdr[1]&0x80 != 0 {
			need += 4
		}
		if c.hdrN < need {
			continue
		}
		var length uint64
		switch l := c.hdr[1] & 0x7f; l {
		case 126:
			length = uint64(c.hdr[2])<<8 | uint64(c.hdr[3])
		case 127:
			for i := 2; i < 10; i++ {
				length = length<<8 | uint64(c.hdr[i])
			}
		default:
			length = uint64(l)
		}
		c.hdrN = 0
		if opcode := c.hdr[0] & 0x0f; opcode < 8 {
			if opcode != 0 { // a new message; 0 continues the last one
				c.msg = 0
			}
			c.msg += length
			if c.msg > c.max || length > c.max {
				return errMessageTooBig
			}
		}
		c.remaining = length
		c.inFrame = length > 0
	}
	return nil
}

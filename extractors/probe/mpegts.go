package probe

import (
	"context"
	"errors"
	"io"
	"sort"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// MPEG transport stream packets as m2ts and drm need them: the packet size
// (188; 192 for Blu-ray M2TS with its 4-byte timestamp; 204 with
// Reed-Solomon parity), and per PID the packets, the scrambled ones
// (transport_scrambling_control), the ones carrying a PCR, transport errors
// and continuity errors, over the first tsScanBytes of the file.

const (
	// tsScanBytes is how much of a transport stream is scanned: about
	// half a second of a broadcast HD stream, enough to see every PID that
	// matters, its PCR (at least every 100 ms) and its scrambling.
	tsScanBytes = 1 << 20
	// tsSyncPackets is how many sync bytes in a row, a packet apart,
	// recognise a transport stream.
	tsSyncPackets = 5
	// tsMaxResyncs bounds how often the scan looks for sync again after
	// losing it before giving up on the file.
	tsMaxResyncs = 16
	// tsMaxPIDs bounds the PIDs kept (there are 8192).
	tsMaxPIDs = 8192
)

// tsScan is what the packet scan found.
type tsScan struct {
	PacketSize int
	// Offset of the first packet (bytes before it are not a stream).
	Offset  int64
	Packets int
	// Scanned bytes; Whole says the file was scanned to its end.
	Scanned int64
	Whole   bool
	// SyncLosses counts places where the next packet did not start with
	// the sync byte.
	SyncLosses int
	PIDs       map[uint16]*tsPID
}

// tsPID is what one PID carried in the scanned part.
type tsPID struct {
	PID              uint16
	Packets          int
	Scrambled        int // packets with transport_scrambling_control set
	PCRs             int // packets carrying a program clock reference
	TransportErrors  int // transport_error_indicator set
	ContinuityErrors int
	lastCC           int8
}

// sortedPIDs returns the PIDs in order.
func (s *tsScan) sortedPIDs() []*tsPID {
	out := make([]*tsPID, 0, len(s.PIDs))
	for _, p := range s.PIDs {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// scrambled counts the scrambled packets of every PID.
func (s *tsScan) scrambled() int {
	n := 0
	for _, p := range s.PIDs {
		n += p.Scrambled
	}
	return n
}

var errNotTS = errors.New("not an MPEG transport stream")

// tsSync finds the packet size and the offset of the first packet in b:
// tsSyncPackets sync bytes (0x47) in a row, a packet apart. For 192-byte
// packets the sync byte follows a 4-byte header.
func tsSync(b []byte) (size int, off int, ok bool) {
	for _, size := range []int{188, 192, 204} {
		lead := 0
		if size == 192 {
			lead = 4
		}
		for start := 0; start < size && start+lead+(tsSyncPackets-1)*size < len(b); start++ {
			good := true
			for k := 0; k < tsSyncPackets; k++ {
				if b[start+lead+k*size] != 0x47 {
					good = false
					break
				}
			}
			if good {
				return size, start, true
			}
		}
	}
	return 0, 0, false
}

// scanTS scans the first tsScanBytes of r (size bytes long).
func scanTS(r io.ReaderAt, size int64) (*tsScan, error) {
	n := min(size, tsScanBytes)
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, extractors.Transient(err)
	}
	psize, off, ok := tsSync(buf)
	if !ok {
		return nil, errNotTS
	}
	lead := 0
	if psize == 192 {
		lead = 4
	}
	s := &tsScan{PacketSize: psize, Offset: int64(off), PIDs: map[uint16]*tsPID{}, Whole: n == size}
	resyncs := 0
	for off+psize <= len(buf) {
		p := buf[off+lead : off+lead+188]
		if p[0] != 0x47 {
			s.SyncLosses++
			resyncs++
			_, next, ok := tsSync(buf[off+1:])
			if !ok || resyncs > tsMaxResyncs {
				break
			}
			off += 1 + next
			continue
		}
		s.packet(p)
		off += psize
	}
	s.Scanned = int64(off)
	return s, nil
}

// packet records one 188-byte packet.
func (s *tsScan) packet(p []byte) {
	s.Packets++
	pid := uint16(p[1]&0x1f)<<8 | uint16(p[2])
	st := s.PIDs[pid]
	if st == nil {
		if len(s.PIDs) >= tsMaxPIDs {
			return
		}
		st = &tsPID{PID: pid, lastCC: -1}
		s.PIDs[pid] = st
	}
	st.Packets++
	if p[1]&0x80 != 0 {
		st.TransportErrors++
	}
	afc := (p[3] >> 4) & 3
	hasPayload := afc&1 != 0
	if p[3]>>6 != 0 && hasPayload {
		st.Scrambled++
	}
	discontinuity := false
	if afc&2 != 0 && p[4] > 0 && int(p[4]) <= 183 {
		flags := p[5]
		discontinuity = flags&0x80 != 0
		if flags&0x10 != 0 && p[4] >= 7 {
			st.PCRs++
		}
	}
	// Continuity counts payload packets per PID (not the null PID); a
	// repeated counter is a legal duplicate.
	cc := int8(p[3] & 0x0f)
	if pid != 0x1fff && hasPayload {
		if st.lastCC >= 0 && !discontinuity && cc != st.lastCC && cc != (st.lastCC+1)&0x0f {
			st.ContinuityErrors++
		}
		st.lastCC = cc
	}
}

// tsOf is the packet scan of the item, made once per harvest of the file
// (m2ts and drm both read it); nil without error when the file is not a
// transport stream.
func tsOf(ctx context.Context, in *extractors.Input) (*tsScan, error) {
	return readOnce(ctx, in, "probe.mpegts", func(src *doctext.At) (*tsScan, error) {
		s, err := scanTS(src, src.Size)
		if errors.Is(err, errNotTS) {
			return nil, nil
		}
		return s, err
	})
}

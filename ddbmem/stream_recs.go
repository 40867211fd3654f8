package ddbmem

// recBlockSize is the number of records in one block of a recList.
const recBlockSize = 256

// recBlock is a fixed block of stream records.
type recBlock [recBlockSize]streamRec

// recList is a shard's records in sequence-number order, in fixed blocks,
// so that appending never copies the records already held (a slice would
// copy them all each time it grows) and trimming the oldest frees whole
// blocks. The zero value is empty.
type recList struct {
	blocks []*recBlock
	off    int // index in blocks[0] of the first record held
	n      int // records held
}

// len returns the number of records held.
func (l *recList) len() int { return l.n }

// at returns the record at index i (0 is the oldest held).
func (l *recList) at(i int) *streamRec {
	j := l.off + i
	return &l.blocks[j/recBlockSize][j%recBlockSize]
}

// last returns the newest record; l is not empty.
func (l *recList) last() *streamRec { return l.at(l.n - 1) }

// push appends r, taking a block from spare when one is needed.
func (l *recList) push(r streamRec, spare *[]*recBlock) {
	j := l.off + l.n
	if j/recBlockSize == len(l.blocks) {
		var b *recBlock
		if k := len(*spare); k > 0 {
			b = (*spare)[k-1]
			(*spare)[k-1] = nil
			*spare = (*spare)[:k-1]
		} else {
			b = new(recBlock)
		}
		l.blocks = append(l.blocks, b)
	}
	l.blocks[j/recBlockSize][j%recBlockSize] = r
	l.n++
}

// dropFirst removes the k oldest records, clearing them, and gives
// emptied blocks to spare while it holds fewer than maxSpare.
func (l *recList) dropFirst(k int, spare *[]*recBlock, maxSpare int) {
	for i := 0; i < k; {
		b := l.blocks[0]
		m := min(recBlockSize-l.off, k-i)
		clear(b[l.off : l.off+m])
		i += m
		l.off += m
		l.n -= m
		if l.off == recBlockSize || l.n == 0 {
			l.blocks[0] = nil
			l.blocks = l.blocks[1:]
			l.off = 0
			if len(*spare) < maxSpare {
				*spare = append(*spare, b)
			}
		}
	}
	if l.n == 0 {
		l.blocks, l.off = nil, 0
	}
}

// search returns the smallest index i in [0, len) for which f(record i)
// is true, len if none; f is false then true along the list.
func (l *recList) search(f func(*streamRec) bool) int {
	lo, hi := 0, l.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if !f(l.at(m)) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

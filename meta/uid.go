package meta

// UUIDv4 returns the text of a version 4 (random) UUID made of the 16
// random bytes b, with the version and variant bits set: the form of
// metadata.uid and of an audit event's auditID.
func UUIDv4(b [16]byte) string {
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, x := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[x>>4], hex[x&0xf])
	}
	return string(out)
}

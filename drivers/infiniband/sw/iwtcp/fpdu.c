// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * MPA FPDUs (RFC 5044 4): length and pad, marker placement, CRC32c, and a
 * reference encoder/decoder over linear buffers. Pure code, no sockets.
 *
 * Terms: the FPDU "content" is ULPDU_Length, ULPDU, PAD and CRC, without
 * markers (iwtcp_fpdu_len() octets). On the wire, markers sit at every
 * stream offset that is a multiple of 512 (RFC 5044 4.3); a marker falling
 * right before ULPDU_Length belongs to that FPDU, one falling right after
 * the CRC belongs to the next. Since FPDUs, markers and the stream start
 * are 4-octet aligned, no marker splits the header or the CRC, and the CRC
 * is always the last 4 octets of an FPDU on the wire.
 */
#include <linux/bitfield.h>
#include <linux/crc32c.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "fpdu.h"

/* content octets of the FPDU around its ULPDU: header and CRC */
#define FPDU_OVERHEAD	(IWTCP_MPA_FPDU_HDR_SIZE + IWTCP_MPA_CRC_SIZE)
/* FPDU octets between two markers */
#define MARKER_ROOM	(IWTCP_MPA_MARKER_PERIOD - IWTCP_MPA_MARKER_SIZE)

/**
 * iwtcp_fpdu_pad() - PAD octets after a ULPDU (RFC 5044 4.1)
 * @ulpdu_len: ULPDU octets
 *
 * Context: Any context.
 * Return: 0 to 3, so that header, ULPDU and PAD are a multiple of 4 octets.
 */
u32 iwtcp_fpdu_pad(u32 ulpdu_len)
{
	u32 used = (IWTCP_MPA_FPDU_HDR_SIZE + ulpdu_len) % IWTCP_MPA_FPDU_ALIGN;

	return used ? IWTCP_MPA_FPDU_ALIGN - used : 0;
}

/**
 * iwtcp_fpdu_len() - FPDU octets without markers (RFC 5044 4.1)
 * @ulpdu_len: ULPDU octets, at most IWTCP_MPA_ULPDU_MAX
 *
 * Context: Any context.
 * Return: ULPDU_Length field + @ulpdu_len + PAD + CRC, in octets.
 */
u32 iwtcp_fpdu_len(u32 ulpdu_len)
{
	return FPDU_OVERHEAD + ulpdu_len + iwtcp_fpdu_pad(ulpdu_len);
}

/**
 * iwtcp_fpdu_mulpdu() - largest ULPDU for one TCP segment (RFC 5044 4.5)
 * @emss: effective MSS, octets
 * @markers: markers are inserted in this direction
 *
 * EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4) with markers, else
 * EMSS - (6 + EMSS mod 4); never below 128 (RFC 5044 4.5) nor above
 * 64768 (RFC 5044 3; a link MTU of 64828 or more, or lo, gives more).
 *
 * Context: Any context.
 * Return: MULPDU in octets.
 */
u32 iwtcp_fpdu_mulpdu(u32 emss, bool markers)
{
	u32 over = FPDU_OVERHEAD + emss % IWTCP_MPA_FPDU_ALIGN;

	if (markers)
		over += IWTCP_MPA_MARKER_SIZE *
			DIV_ROUND_UP(emss, IWTCP_MPA_MARKER_PERIOD);
	if (emss < over + IWTCP_MPA_MULPDU_MIN)
		return IWTCP_MPA_MULPDU_MIN;
	return min_t(u32, emss - over, IWTCP_MPA_MULPDU_MAX);
}

/**
 * iwtcp_fpdu_mulpdu_at() - largest ULPDU whose FPDU fills one segment here
 * @stream_off: stream offset of the FPDU's first octet, as for
 *	iwtcp_fpdu_markers()
 * @emss: effective MSS, octets
 * @markers: markers are inserted in this direction
 *
 * The dynamic MULPDU of RFC 5044 4.5 ("MAY dynamically adjust the
 * MULPDU"). iwtcp_fpdu_mulpdu() leaves room for the worst case of
 * markers; an FPDU in which fewer fall is 4 or 8 octets short of @emss,
 * TCP fills its segments regardless, and the FPDUs after it straddle
 * segment boundaries (RFC 5044 5.1: alignment lost). Counting the
 * markers that fall in the FPDU starting at @stream_off instead lets its
 * wire length reach @emss less @emss mod 4, so FPDUs sent back to back
 * start segments. Without markers this is iwtcp_fpdu_mulpdu().
 *
 * Context: Any context.
 * Return: ULPDU octets, at least iwtcp_fpdu_mulpdu(@emss, @markers), at
 * most IWTCP_MPA_MULPDU_MAX.
 */
u32 iwtcp_fpdu_mulpdu_at(u32 stream_off, u32 emss, bool markers)
{
	u32 ulpdu = iwtcp_fpdu_mulpdu(emss, markers);
	struct iwtcp_fpdu_layout l;
	u32 next;

	if (!markers)
		return ulpdu;
	for (;;) {
		next = ulpdu + IWTCP_MPA_FPDU_ALIGN;
		if (next > IWTCP_MPA_MULPDU_MAX ||
		    iwtcp_fpdu_markers(stream_off, iwtcp_fpdu_len(next), &l) ||
		    l.wire_len > emss)
			return ulpdu;
		ulpdu = next;
	}
}

/**
 * iwtcp_fpdu_marker_ptr() - FPDUPTR of one marker (RFC 5044 4.3)
 * @l: layout from iwtcp_fpdu_markers()
 * @i: marker index, below l->nr
 *
 * Context: Any context.
 * Return: 0 for a marker right before ULPDU_Length, else the octets from
 * ULPDU_Length to the marker: all markers of one FPDU point back at its
 * ULPDU_Length field.
 */
u16 iwtcp_fpdu_marker_ptr(const struct iwtcp_fpdu_layout *l, u32 i)
{
	if (i == 0 && l->hdr_off)
		return 0;
	return l->first + IWTCP_MPA_MARKER_PERIOD * i - l->hdr_off;
}

/**
 * iwtcp_fpdu_markers() - markers inside one FPDU (RFC 5044 4.3)
 * @stream_off: stream offset of the FPDU's first octet, counted from the
 *	first octet of full operation (where the first marker goes), modulo
 *	2^32; a multiple of 4
 * @fpdu_len: FPDU octets without markers (iwtcp_fpdu_len()); a multiple
 *	of 4
 * @l: the result
 *
 * Context: Any context.
 * Return:
 * * 0 - @l is filled
 * * -EINVAL - @stream_off or @fpdu_len not a multiple of 4, or @fpdu_len
 *   shorter than an empty FPDU
 * * -EMSGSIZE - a marker would lie more than 16 bits of FPDUPTR away from
 *   ULPDU_Length (RFC 5044 4.2)
 */
int iwtcp_fpdu_markers(u32 stream_off, u32 fpdu_len,
		       struct iwtcp_fpdu_layout *l)
{
	u32 in = stream_off % IWTCP_MPA_MARKER_PERIOD;
	u32 room;
	u32 last;

	if (stream_off % IWTCP_MPA_FPDU_ALIGN ||
	    fpdu_len % IWTCP_MPA_FPDU_ALIGN || fpdu_len < FPDU_OVERHEAD)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	room = IWTCP_MPA_MARKER_PERIOD - in;
	if (!in) {
		/* RFC 5044 4.3: marker between FPDUs: it leads the next one */
		l->nr = 1;
		l->hdr_off = IWTCP_MPA_MARKER_SIZE;
		room = MARKER_ROOM;
	} else if (fpdu_len > room) {
		l->first = room;
	}
	if (fpdu_len > room)
		l->nr += DIV_ROUND_UP(fpdu_len - room, MARKER_ROOM);
	l->wire_len = fpdu_len + IWTCP_MPA_MARKER_SIZE * l->nr;
	/* the last marker is the farthest from ULPDU_Length */
	if (l->nr > 1 || (l->nr && !l->hdr_off)) {
		last = l->first + IWTCP_MPA_MARKER_PERIOD * (l->nr - 1);
		if (last - l->hdr_off > U16_MAX)
			return -EMSGSIZE;
	}
	return 0;
}

/**
 * iwtcp_fpdu_crc_update() - run CRC32c over more FPDU octets
 * @crc: IWTCP_FPDU_CRC_SEED, or the value of the previous call
 * @p: octets
 * @len: octets at @p
 *
 * The CRC covers the FPDU from its leading marker or ULPDU_Length through
 * PAD and any marker in it (RFC 5044 4.4).
 *
 * Context: Any context.
 * Return: the updated CRC register.
 */
u32 iwtcp_fpdu_crc_update(u32 crc, const void *p, unsigned int len)
{
	return crc32c(crc, p, len);
}

/**
 * iwtcp_fpdu_crc_final() - CRC field value from the CRC register
 * @crc: the last iwtcp_fpdu_crc_update() value
 *
 * Context: Any context.
 * Return: the CRC field as sent (RFC 5044 4.4, RFC 3720 B.4; see struct
 * iwtcp_mpa_trailer).
 */
__le32 iwtcp_fpdu_crc_final(u32 crc)
{
	return cpu_to_le32(~crc);
}

/**
 * iwtcp_fpdu_crc() - CRC field value of contiguous octets
 * @p: octets
 * @len: octets at @p
 *
 * Context: Any context.
 * Return: the CRC field as sent (RFC 5044 4.4).
 */
__le32 iwtcp_fpdu_crc(const void *p, unsigned int len)
{
	return iwtcp_fpdu_crc_final(iwtcp_fpdu_crc_update(IWTCP_FPDU_CRC_SEED,
							  p, len));
}

/**
 * iwtcp_fpdu_wire_off() - where an FPDU content octet is on the wire
 * @l: the FPDU's layout (iwtcp_fpdu_markers(), or zeroed but for
 *	@wire_len without markers)
 * @c: content octet: 0 is the first octet of ULPDU_Length
 * @run: set to the octets from there to the next marker, U32_MAX if
 *	none follows
 *
 * Context: Any context.
 * Return: the wire offset of @c from the FPDU's first octet (RFC 5044 4.3).
 */
u32 iwtcp_fpdu_wire_off(const struct iwtcp_fpdu_layout *l, u32 c, u32 *run)
{
	u32 w = l->hdr_off + c;
	u32 i = l->hdr_off ? 1 : 0;
	u32 m;

	for (; i < l->nr; i++) {
		m = l->first + IWTCP_MPA_MARKER_PERIOD * i;
		if (m > w)
			break;
		w += IWTCP_MPA_MARKER_SIZE;
	}
	*run = i < l->nr ? l->first + IWTCP_MPA_MARKER_PERIOD * i - w : U32_MAX;
	return w;
}

static void to_wire(u8 *wire, const struct iwtcp_fpdu_layout *l, u32 c,
		    const u8 *src, u32 n)
{
	u32 run, w, k;

	while (n) {
		w = iwtcp_fpdu_wire_off(l, c, &run);
		k = min(n, run);
		if (src)
			memcpy(wire + w, src, k);
		else
			memset(wire + w, 0, k);
		c += k;
		n -= k;
		if (src)
			src += k;
	}
}

static void from_wire(const u8 *wire, const struct iwtcp_fpdu_layout *l,
		      u32 c, u8 *dst, u32 n)
{
	u32 run, w, k;

	while (n) {
		w = iwtcp_fpdu_wire_off(l, c, &run);
		k = min(n, run);
		memcpy(dst, wire + w, k);
		c += k;
		n -= k;
		dst += k;
	}
}

static int stream_layout(const struct iwtcp_fpdu_stream *st, u32 fpdu_len,
			 struct iwtcp_fpdu_layout *l)
{
	if (st->markers)
		return iwtcp_fpdu_markers(st->off, fpdu_len, l);
	memset(l, 0, sizeof(*l));
	l->wire_len = fpdu_len;
	return 0;
}

/**
 * iwtcp_fpdu_build() - encode one FPDU into a linear buffer (RFC 5044 4)
 * @st: the sending direction; st->off advances by the octets written
 * @ulpdu: the ULPDU (a DDP segment)
 * @ulpdu_len: octets at @ulpdu, at most IWTCP_MPA_ULPDU_MAX
 * @buf: output
 * @size: octets available at @buf
 *
 * Writes markers (with st->markers), ULPDU_Length, the ULPDU, zero PAD and
 * the CRC (zero when st->crc is off: RFC 5044 4.1 lets it hold any value).
 *
 * Context: Any context.
 * Return:
 * * octets written
 * * -EMSGSIZE - @ulpdu_len too long, or FPDUPTR would overflow
 * * -ENOSPC - @size too small
 * * -EINVAL - st->off not a multiple of 4
 */
int iwtcp_fpdu_build(struct iwtcp_fpdu_stream *st, const void *ulpdu,
		     u32 ulpdu_len, void *buf, size_t size)
{
	u32 fpdu_len = iwtcp_fpdu_len(ulpdu_len);
	struct iwtcp_mpa_fpdu_hdr hdr;
	struct iwtcp_mpa_trailer tr;
	struct iwtcp_mpa_marker mk;
	struct iwtcp_fpdu_layout l;
	u8 *wire = buf;
	u32 i;
	int ret;

	if (ulpdu_len > IWTCP_MPA_ULPDU_MAX)
		return -EMSGSIZE;
	ret = stream_layout(st, fpdu_len, &l);
	if (ret)
		return ret;
	if (size < l.wire_len)
		return -ENOSPC;

	for (i = 0; i < l.nr; i++) {
		mk.rsvd = 0;
		mk.fpdu_ptr = cpu_to_be16(iwtcp_fpdu_marker_ptr(&l, i));
		memcpy(wire + l.first + IWTCP_MPA_MARKER_PERIOD * i, &mk,
		       sizeof(mk));
	}
	hdr.ulpdu_len = cpu_to_be16(ulpdu_len);
	to_wire(wire, &l, 0, (const u8 *)&hdr, sizeof(hdr));
	to_wire(wire, &l, sizeof(hdr), ulpdu, ulpdu_len);
	to_wire(wire, &l, sizeof(hdr) + ulpdu_len, NULL,
		iwtcp_fpdu_pad(ulpdu_len));
	/* RFC 5044 4.4: CRC over everything before it, markers included */
	tr.crc = st->crc ? iwtcp_fpdu_crc(wire, l.wire_len - sizeof(tr)) : 0;
	memcpy(wire + l.wire_len - sizeof(tr), &tr, sizeof(tr));
	st->off += l.wire_len;
	return l.wire_len;
}

/* RFC 5044 4.3, 8 (error 3): every marker points at ULPDU_Length */
static int check_markers(const u8 *wire, const struct iwtcp_fpdu_layout *l)
{
	struct iwtcp_mpa_marker mk;
	u16 ptr;
	u32 i;

	for (i = 0; i < l->nr; i++) {
		memcpy(&mk, wire + l->first + IWTCP_MPA_MARKER_PERIOD * i,
		       sizeof(mk));
		/* RFC 5044 4.2: RESERVED ignored, low two bits read as 0 */
		ptr = be16_to_cpu(mk.fpdu_ptr) & IWTCP_MPA_MARKER_PTR;
		if (ptr != iwtcp_fpdu_marker_ptr(l, i))
			return -EPROTO;
	}
	return 0;
}

/**
 * iwtcp_fpdu_parse() - decode one FPDU from a linear buffer (RFC 5044 6)
 * @st: the receiving direction; st->off advances by the octets consumed
 * @buf: received octets starting at the FPDU (its leading marker, if any)
 * @len: octets at @buf
 * @ulpdu: where the ULPDU goes, markers removed
 * @ulpdu_size: octets available at @ulpdu
 * @ulpdu_len: set to the ULPDU octets written to @ulpdu (ULPDU_Length)
 *
 * Checks, in the order RFC 5044 8 implies: the CRC (with st->crc), then
 * that each marker agrees with ULPDU_Length (with st->markers).
 *
 * Context: Any context.
 * Return:
 * * octets consumed from @buf
 * * -EAGAIN - @len ends before the FPDU does; st->off unchanged
 * * -EBADMSG - CRC mismatch (MPA error 2)
 * * -EPROTO - marker disagrees with ULPDU_Length (MPA error 3)
 * * -EMSGSIZE - ULPDU larger than @ulpdu_size, or FPDUPTR overflow
 * * -EINVAL - st->off not a multiple of 4
 */
int iwtcp_fpdu_parse(struct iwtcp_fpdu_stream *st, const void *buf,
		     size_t len, void *ulpdu, size_t ulpdu_size, u32 *ulpdu_len)
{
	u32 hdr_off = st->markers && !(st->off % IWTCP_MPA_MARKER_PERIOD) ?
		      IWTCP_MPA_MARKER_SIZE : 0;
	struct iwtcp_mpa_fpdu_hdr hdr;
	struct iwtcp_mpa_trailer tr;
	struct iwtcp_fpdu_layout l;
	const u8 *wire = buf;
	u32 ulen;
	int ret;

	if (len < hdr_off + sizeof(hdr))
		return -EAGAIN;
	memcpy(&hdr, wire + hdr_off, sizeof(hdr));
	ulen = be16_to_cpu(hdr.ulpdu_len);
	ret = stream_layout(st, iwtcp_fpdu_len(ulen), &l);
	if (ret)
		return ret;
	if (len < l.wire_len)
		return -EAGAIN;
	if (ulen > ulpdu_size)
		return -EMSGSIZE;
	memcpy(&tr, wire + l.wire_len - sizeof(tr), sizeof(tr));
	if (st->crc && tr.crc != iwtcp_fpdu_crc(wire, l.wire_len - sizeof(tr)))
		return -EBADMSG;
	ret = check_markers(wire, &l);
	if (ret)
		return ret;
	from_wire(wire, &l, sizeof(hdr), ulpdu, ulen);
	*ulpdu_len = ulen;
	st->off += l.wire_len;
	return l.wire_len;
}

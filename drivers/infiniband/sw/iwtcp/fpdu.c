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
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "crc.h"
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
 * iwtcp_fpdu_ulpdu_fit() - largest ULPDU whose FPDU fits in @room octets
 * @room: wire octets left in a TCP segment, no markers in this direction
 *
 * For an FPDU placed after others in a segment (RFC 5044 5.1: FPDUs are
 * packed into a segment "as long as they are entirely contained" in it):
 * with its ULPDU_Length, PAD and CRC the FPDU fills @room rounded down
 * to a multiple of 4 exactly. Unlike iwtcp_fpdu_mulpdu() there is no
 * 128-octet floor: the FPDU must fit what is left, not a whole segment.
 *
 * Context: Any context.
 * Return: ULPDU octets, 0 if @room holds no FPDU at all, at most
 * IWTCP_MPA_MULPDU_MAX.
 */
u32 iwtcp_fpdu_ulpdu_fit(u32 room)
{
	room -= room % IWTCP_MPA_FPDU_ALIGN;
	if (room < FPDU_OVERHEAD)
		return 0;
	return min_t(u32, room - FPDU_OVERHEAD, IWTCP_MPA_MULPDU_MAX);
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
	return iwtcp_crc32c(crc, p, len);
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

static int stream_layout(const struct iwtcp_fpdu_stream *st, u32 fpdu_len,
			 struct iwtcp_fpdu_layout *l)
{
	if (st->markers)
		return iwtcp_fpdu_markers(st->off, fpdu_len, l);
	memset(l, 0, sizeof(*l));
	l->wire_len = fpdu_len;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Transmit framer                                                     */

/*
 * One pass over every octet: each is copied into the sink's room and the
 * CRC runs over that copy while it is still in the cache. So the CRC
 * always matches the octets that go out, even if the source changes
 * meanwhile (an application writing into a buffer it is sending). The
 * CRC runs once per room the sink gave (usually one per FPDU), when that
 * room is full or the CRC field is due, not per piece: each CRC call has
 * a fixed cost that the pieces (length, header, each page of payload,
 * PAD, markers) would each pay.
 */

/* RFC 5044 4.4: the CRC over what was written to the room since last time */
static __always_inline void tx_crc_flush(struct iwtcp_fpdu_tx *t)
{
	if (t->crc_on && t->dst != t->crc_from)
		t->crc = iwtcp_fpdu_crc_update(t->crc, t->crc_from,
					       t->dst - t->crc_from);
	t->crc_from = t->dst;
}

/* Wire octets from where the FPDU stands to its next marker. */
static __always_inline u32 tx_to_marker(const struct iwtcp_fpdu_tx *t)
{
	if (t->mk == t->l.nr)
		return U32_MAX;
	return t->l.first + IWTCP_MPA_MARKER_PERIOD * t->mk - t->wpos;
}

/*
 * tx_put() when the room runs out: ask the sink for the rest of the FPDU
 * at once (one call per FPDU, unless the sink hands it out in shorter
 * runs) and copy on.
 */
static int tx_put_refill(struct iwtcp_fpdu_tx *t, const u8 *src, u32 n,
			 bool crc, const struct iwtcp_fpdu_sink *s)
{
	u32 left = t->l.wire_len - t->wpos, k;
	void *dst;
	int ret;

	if (t->wpos > t->l.wire_len || n > left)
		return -EPROTO;
	while (n) {
		if (!t->room) {
			/* the CRC field itself: the CRC is final, not in it */
			if (crc)
				tx_crc_flush(t);
			ret = s->reserve(s->arg, left, &dst);
			if (ret < 0)
				return ret;
			if (!ret || (u32)ret > left)
				return -EPROTO;
			t->dst = dst;
			t->crc_from = dst;
			t->room = ret;
		}
		k = min(n, t->room);
		memcpy(t->dst, src, k);
		t->dst += k;
		t->room -= k;
		t->wpos += k;
		left -= k;
		src += k;
		n -= k;
	}
	return 0;
}

/*
 * Copy @n wire octets into the sink; they count in the CRC (RFC 5044 4.4)
 * if @crc (all but the CRC field). Inline for the common case, room left
 * from the FPDU's first call (the room never exceeds what is left of the
 * FPDU).
 */
static __always_inline int tx_put(struct iwtcp_fpdu_tx *t, const void *p,
				  u32 n, bool crc,
				  const struct iwtcp_fpdu_sink *s)
{
	u8 *dst = t->dst;

	if (n > t->room)
		return tx_put_refill(t, p, n, crc, s);
	memcpy(dst, p, n);
	t->dst = dst + n;
	t->room -= n;
	t->wpos += n;
	return 0;
}

/* RFC 5044 4.3: the marker due at this point of the FPDU, if one is */
static __always_inline int tx_marker(struct iwtcp_fpdu_tx *t,
				     const struct iwtcp_fpdu_sink *s)
{
	struct iwtcp_mpa_marker mk;
	int ret;

	if (tx_to_marker(t))
		return 0;
	mk.rsvd = 0;
	mk.fpdu_ptr = cpu_to_be16(iwtcp_fpdu_marker_ptr(&t->l, t->mk));
	/* RFC 5044 4.4: the CRC covers the markers inside the FPDU */
	ret = tx_put(t, &mk, sizeof(mk), true, s);
	if (ret)
		return ret;
	t->mk++;
	return 0;
}

/* Write @n content octets, with the markers that fall among them. */
static int tx_emit(struct iwtcp_fpdu_tx *t, const u8 *p, u32 n,
		   const struct iwtcp_fpdu_sink *s)
{
	u32 k;
	int ret;

	while (n) {
		ret = tx_marker(t, s);
		if (ret)
			return ret;
		k = min(n, tx_to_marker(t));
		ret = tx_put(t, p, k, true, s);
		if (ret)
			return ret;
		p += k;
		n -= k;
	}
	return 0;
}

/**
 * iwtcp_fpdu_tx_begin() - start framing one FPDU (RFC 5044 4.1, 4.3)
 * @t: the framer state, filled here
 * @st: the sending direction (its offset places the markers)
 * @ulpdu_len: octets of the ULPDU that iwtcp_fpdu_tx_add() will bring,
 *	at most IWTCP_MPA_ULPDU_MAX
 * @s: where the octets go
 *
 * Writes a leading marker if one is due and ULPDU_Length; the ULPDU
 * follows with iwtcp_fpdu_tx_add(), then iwtcp_fpdu_tx_end(). This is
 * the framer of every FPDU iwtcp sends: the data path's (qp_tx.c), the
 * MPA start-up's (iwtcp_fpdu_build()) and the host unit tests'.
 *
 * Context: Any context the sink allows.
 * Return: 0, or
 * * -EMSGSIZE - @ulpdu_len too long, or FPDUPTR would overflow
 * * -EINVAL - st->off not a multiple of 4 (with markers)
 * * -EPROTO - the sink gave no room, or more than was asked
 * * the sink's error
 */
int iwtcp_fpdu_tx_begin(struct iwtcp_fpdu_tx *t,
			const struct iwtcp_fpdu_stream *st, u32 ulpdu_len,
			const struct iwtcp_fpdu_sink *s)
{
	struct iwtcp_mpa_fpdu_hdr hdr;
	int ret;

	if (ulpdu_len > IWTCP_MPA_ULPDU_MAX)
		return -EMSGSIZE;
	memset(t, 0, sizeof(*t));
	ret = stream_layout(st, iwtcp_fpdu_len(ulpdu_len), &t->l);
	if (ret)
		return ret;
	t->ulpdu_len = ulpdu_len;
	t->crc = IWTCP_FPDU_CRC_SEED;
	t->crc_on = st->crc;
	hdr.ulpdu_len = cpu_to_be16(ulpdu_len);
	t->content = sizeof(hdr);
	return tx_emit(t, (const u8 *)&hdr, sizeof(hdr), s);
}

/**
 * iwtcp_fpdu_tx_add() - frame ULPDU octets (RFC 5044 4.3, 4.4)
 * @t: the framer state of iwtcp_fpdu_tx_begin()
 * @p: the octets (header, payload), mapped for the CPU; read once, here
 * @len: octets at @p
 * @s: where the octets go
 *
 * Copies @p into the sink's room with the markers that fall among its
 * octets (RFC 5044 4.3), and runs the CRC (RFC 5044 4.4) over the copy in
 * wire order as it goes: each octet is read from @p once.
 *
 * Context: Any context the sink allows.
 * Return: 0, -EMSGSIZE if the ULPDU would grow beyond what
 * iwtcp_fpdu_tx_begin() announced, -EPROTO if the sink gave no room or
 * more than was asked, or the sink's error.
 */
int iwtcp_fpdu_tx_add(struct iwtcp_fpdu_tx *t, const void *p, u32 len,
		      const struct iwtcp_fpdu_sink *s)
{
	if (len > sizeof(struct iwtcp_mpa_fpdu_hdr) + t->ulpdu_len - t->content)
		return -EMSGSIZE;
	t->content += len;
	return tx_emit(t, p, len, s);
}

/**
 * iwtcp_fpdu_tx_end() - finish the FPDU: PAD, marker, CRC (RFC 5044 4.1-4.4)
 * @t: the framer state, all ULPDU octets added
 * @st: the sending direction; st->off advances by the FPDU's wire length
 * @s: where the octets go
 *
 * The CRC field is 0 when the CRC is off (RFC 5044 4.1 lets it hold any
 * value then).
 *
 * Context: Any context the sink allows.
 * Return: the FPDU's wire octets, markers included, or
 * * -EINVAL - fewer ULPDU octets added than announced
 * * -EPROTO - the framer's own bookkeeping disagrees with the layout
 * * the sink's error
 */
int iwtcp_fpdu_tx_end(struct iwtcp_fpdu_tx *t, struct iwtcp_fpdu_stream *st,
		      const struct iwtcp_fpdu_sink *s)
{
	static const u8 zero_pad[IWTCP_MPA_FPDU_ALIGN];
	struct iwtcp_mpa_trailer tr;
	int ret;

	if (t->content != sizeof(struct iwtcp_mpa_fpdu_hdr) + t->ulpdu_len)
		return -EINVAL;
	ret = tx_emit(t, zero_pad, iwtcp_fpdu_pad(t->ulpdu_len), s);
	/* a marker may fall right before the CRC, never inside it */
	if (!ret)
		ret = tx_marker(t, s);
	if (ret)
		return ret;
	tx_crc_flush(t);
	tr.crc = t->crc_on ? iwtcp_fpdu_crc_final(t->crc) : 0;
	ret = tx_put(t, &tr, sizeof(tr), false, s);
	if (ret)
		return ret;
	if (t->mk != t->l.nr || t->wpos != t->l.wire_len)
		return -EPROTO;
	st->off += t->l.wire_len;
	return t->l.wire_len;
}

/* A linear buffer as a sink: @p, @left octets free */
struct linear_sink {
	u8 *p;
	size_t left;
};

static int linear_reserve(void *arg, u32 len, void **dst)
{
	struct linear_sink *ls = arg;

	if (len > ls->left)
		return -ENOSPC;
	*dst = ls->p;
	ls->p += len;
	ls->left -= len;
	return len;
}

/**
 * iwtcp_fpdu_build() - encode one FPDU into a linear buffer (RFC 5044 4)
 * @st: the sending direction; st->off advances by the octets written
 * @ulpdu: the ULPDU (a DDP segment)
 * @ulpdu_len: octets at @ulpdu, at most IWTCP_MPA_ULPDU_MAX
 * @buf: output
 * @size: octets available at @buf
 *
 * iwtcp_fpdu_tx_begin(), _add() and _end() into @buf.
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
	struct linear_sink out = { .p = buf, .left = size };
	const struct iwtcp_fpdu_sink s = {
		.reserve = linear_reserve, .arg = &out,
	};
	struct iwtcp_fpdu_layout l;
	struct iwtcp_fpdu_tx t;
	int ret;

	if (ulpdu_len > IWTCP_MPA_ULPDU_MAX)
		return -EMSGSIZE;
	ret = stream_layout(st, iwtcp_fpdu_len(ulpdu_len), &l);
	if (ret)
		return ret;
	if (size < l.wire_len)
		return -ENOSPC;
	ret = iwtcp_fpdu_tx_begin(&t, st, ulpdu_len, &s);
	if (!ret)
		ret = iwtcp_fpdu_tx_add(&t, ulpdu, ulpdu_len, &s);
	return ret ?: iwtcp_fpdu_tx_end(&t, st, &s);
}

/* ------------------------------------------------------------------ */
/* Receive framer                                                      */

static int visit_copy(void *ctx, const void *p, u32 len)
{
	u8 **dst = ctx;

	memcpy(*dst, p, len);
	*dst += len;
	return 0;
}

/* The CRC over an FPDU's first @left octets; the rest (its CRC) to @tail. */
struct visit_crc_ctx {
	u32 crc;
	u32 left;
	u8 *tail;
};

static int visit_crc(void *ctx, const void *p, u32 len)
{
	struct visit_crc_ctx *v = ctx;
	u32 k = min(len, v->left);

	v->crc = iwtcp_fpdu_crc_update(v->crc, p, k);
	v->left -= k;
	if (len > k) {
		memcpy(v->tail, (const u8 *)p + k, len - k);
		v->tail += len - k;
	}
	return 0;
}

static int src_copy(const struct iwtcp_fpdu_source *src, u32 pos, void *dst,
		    u32 len)
{
	u8 *d = dst;

	return src->visit(src->arg, pos, len, visit_copy, &d);
}

/* Octets to @a (up to @na of them), then the rest to @b. */
struct visit_split_ctx {
	u8 *a;
	u32 na;
	u8 *b;
};

static int visit_split(void *ctx, const void *p, u32 len)
{
	struct visit_split_ctx *v = ctx;
	u32 k = min(len, v->na);

	memcpy(v->a, p, k);
	v->a += k;
	v->na -= k;
	if (len > k) {
		memcpy(v->b, (const u8 *)p + k, len - k);
		v->b += len - k;
	}
	return 0;
}

/**
 * iwtcp_fpdu_rx_begin() - find the extent of the next FPDU (RFC 5044 6)
 * @r: filled with its layout, ULPDU_Length and @hdr_got
 * @st: the receiving direction (its offset places the markers)
 * @src: the received octets, from the FPDU's first
 * @hdr: where the ULPDU's leading octets go (its DDP header), or NULL
 * @hdr_size: octets @hdr takes, 0 with no @hdr
 *
 * Reads ULPDU_Length (after a leading marker, if one is due) and checks
 * against @src->avail that the whole FPDU has arrived. In the same read
 * it copies to @hdr what follows ULPDU_Length up to @hdr_size octets, the
 * next marker (RFC 5044 4.3) or the last octet arrived: @r->hdr_got says
 * how many of them belong to the ULPDU; iwtcp_fpdu_rx_hdr() brings the
 * rest. Octets of @hdr past the ULPDU's end are undefined (PAD, CRC, the
 * next FPDU). None is verified yet (iwtcp_fpdu_rx_check() comes next), so
 * none may be acted on before.
 *
 * Context: Any context the source allows.
 * Return: 0, or
 * * -EAGAIN - the FPDU has not arrived whole yet
 * * -EMSGSIZE - a marker would lie beyond FPDUPTR's reach of ULPDU_Length:
 *   the length is bad (RFC 5044 4.2)
 * * -EINVAL - st->off not a multiple of 4 (with markers): a caller's bug
 * * the source's error
 */
int iwtcp_fpdu_rx_begin(struct iwtcp_fpdu_rx *r,
			const struct iwtcp_fpdu_stream *st,
			const struct iwtcp_fpdu_source *src, void *hdr,
			u32 hdr_size)
{
	u32 hdr_off = st->markers && !(st->off % IWTCP_MPA_MARKER_PERIOD) ?
		      IWTCP_MPA_MARKER_SIZE : 0;
	struct iwtcp_mpa_fpdu_hdr len_field;
	struct visit_split_ctx v = {
		.a = (u8 *)&len_field, .na = sizeof(len_field), .b = hdr,
	};
	u32 n;
	int ret;

	/* before the read: the marker limit below assumes it */
	if (st->markers && st->off % IWTCP_MPA_FPDU_ALIGN)
		return -EINVAL;
	if (src->avail < hdr_off + sizeof(len_field))
		return -EAGAIN;
	n = min_t(u32, sizeof(len_field) + hdr_size, src->avail - hdr_off);
	/* up to the next marker, which would need stripping (4 octets on) */
	if (st->markers)
		n = min_t(u32, n, IWTCP_MPA_MARKER_PERIOD -
			  (st->off + hdr_off) % IWTCP_MPA_MARKER_PERIOD);
	ret = src->visit(src->arg, hdr_off, n, visit_split, &v);
	if (ret)
		return ret;
	r->ulpdu_len = be16_to_cpu(len_field.ulpdu_len);
	r->hdr_got = min(n - (u32)sizeof(len_field), r->ulpdu_len);
	ret = stream_layout(st, iwtcp_fpdu_len(r->ulpdu_len), &r->l);
	if (ret)
		return ret;
	return src->avail < r->l.wire_len ? -EAGAIN : 0;
}

/**
 * iwtcp_fpdu_rx_hdr() - the ULPDU's leading octets, markers removed
 * @r: the FPDU, from iwtcp_fpdu_rx_begin()
 * @src: the received octets, from the FPDU's first
 * @hdr: the @hdr given to iwtcp_fpdu_rx_begin()
 * @len: octets wanted in @hdr, at most its @hdr_size and @r->ulpdu_len
 *
 * Copies what iwtcp_fpdu_rx_begin() did not (RFC 5044 4.3: past a marker).
 *
 * Context: Any context the source allows.
 * Return: 0, -EINVAL if @len reaches beyond the ULPDU, or the source's
 * error.
 */
int iwtcp_fpdu_rx_hdr(const struct iwtcp_fpdu_rx *r,
		      const struct iwtcp_fpdu_source *src, void *hdr, u32 len)
{
	if (len <= r->hdr_got)
		return 0;
	return iwtcp_fpdu_rx_copy(r, src, sizeof(struct iwtcp_mpa_fpdu_hdr) +
				  r->hdr_got, (u8 *)hdr + r->hdr_got,
				  len - r->hdr_got);
}

/**
 * iwtcp_fpdu_rx_check() - verify an FPDU before DDP sees it (RFC 5044 6)
 * @r: the FPDU, from iwtcp_fpdu_rx_begin()
 * @st: the receiving direction: CRC and markers on or off
 * @src: the received octets, from the FPDU's first
 *
 * The CRC first, then each marker against ULPDU_Length: the order of MPA
 * errors 2 and 3 (RFC 5044 8). RESERVED and FPDUPTR's low two bits are
 * ignored (RFC 5044 4.2). No octet of the FPDU may be passed on before
 * this returns 0 (RFC 5044 6: "MUST first verify the FPDU").
 *
 * Context: Any context the source allows.
 * Return: 0, or
 * * -EBADMSG - CRC mismatch (MPA error 2)
 * * -EPROTO - a marker disagrees with ULPDU_Length (MPA error 3)
 * * the source's error
 */
int iwtcp_fpdu_rx_check(const struct iwtcp_fpdu_rx *r,
			const struct iwtcp_fpdu_stream *st,
			const struct iwtcp_fpdu_source *src)
{
	const struct iwtcp_fpdu_layout *l = &r->l;
	struct iwtcp_mpa_trailer tr;
	struct visit_crc_ctx v = {
		.crc = IWTCP_FPDU_CRC_SEED,
		.left = l->wire_len - sizeof(tr),
		.tail = (u8 *)&tr,
	};
	struct iwtcp_mpa_marker mk;
	u16 ptr;
	u32 i;
	int ret;

	if (st->crc) {
		/* one pass: the CRC field is the FPDU's last 4 octets */
		ret = src->visit(src->arg, 0, l->wire_len, visit_crc, &v);
		if (ret)
			return ret;
		if (tr.crc != iwtcp_fpdu_crc_final(v.crc))
			return -EBADMSG;
	}
	for (i = 0; i < l->nr; i++) {
		ret = src_copy(src, l->first + IWTCP_MPA_MARKER_PERIOD * i, &mk,
			       sizeof(mk));
		if (ret)
			return ret;
		ptr = be16_to_cpu(mk.fpdu_ptr) & IWTCP_MPA_MARKER_PTR;
		if (ptr != iwtcp_fpdu_marker_ptr(l, i))
			return -EPROTO;
	}
	return 0;
}

/**
 * iwtcp_fpdu_rx_visit() - visit FPDU content, markers removed (RFC 5044 4.3)
 * @r: the FPDU, from iwtcp_fpdu_rx_begin()
 * @src: the received octets, from the FPDU's first
 * @c: first content octet: 0 is the first of ULPDU_Length, 2 the ULPDU's
 * @len: octets to visit, within ULPDU_Length and the ULPDU
 * @fn: called on the octets in order, a piece per run between markers
 *	and per buffer of @src; a non-zero return stops the visit
 * @ctx: first argument of @fn
 *
 * Placement hands the whole payload of a segment to one visitor that
 * writes the target pages (RFC 5041 5: DDP places it at its tagged
 * offset or MO): one visit of the source per segment, not one per
 * target page.
 *
 * Context: Any context the source allows.
 * Return: 0, -EINVAL if @c and @len reach beyond the ULPDU, the source's
 * error or @fn's.
 */
int iwtcp_fpdu_rx_visit(const struct iwtcp_fpdu_rx *r,
			const struct iwtcp_fpdu_source *src, u32 c, u32 len,
			iwtcp_fpdu_visit_t fn, void *ctx)
{
	u32 end = sizeof(struct iwtcp_mpa_fpdu_hdr) + r->ulpdu_len;
	u32 run, w, n;
	int ret;

	if (c > end || len > end - c)
		return -EINVAL;
	while (len) {
		w = iwtcp_fpdu_wire_off(&r->l, c, &run);
		n = min(len, run);
		ret = src->visit(src->arg, w, n, fn, ctx);
		if (ret)
			return ret;
		c += n;
		len -= n;
	}
	return 0;
}

/**
 * iwtcp_fpdu_rx_copy() - copy FPDU content out, markers removed (RFC 5044 4.3)
 * @r: the FPDU, from iwtcp_fpdu_rx_begin()
 * @src: the received octets, from the FPDU's first
 * @c: first content octet: 0 is the first of ULPDU_Length, 2 the ULPDU's
 * @dst: where the octets go
 * @len: octets to copy, within ULPDU_Length and the ULPDU
 *
 * Context: Any context the source allows.
 * Return: 0, -EINVAL if @c and @len reach beyond the ULPDU, or the
 * source's error.
 */
int iwtcp_fpdu_rx_copy(const struct iwtcp_fpdu_rx *r,
		       const struct iwtcp_fpdu_source *src, u32 c, void *dst,
		       u32 len)
{
	u8 *d = dst;

	return iwtcp_fpdu_rx_visit(r, src, c, len, visit_copy, &d);
}

/* A linear buffer as a source. */
struct linear_src {
	const u8 *buf;
	size_t len;
};

static int linear_visit(void *arg, u32 pos, u32 len, iwtcp_fpdu_visit_t fn,
			void *ctx)
{
	const struct linear_src *ls = arg;

	if (pos > ls->len || len > ls->len - pos)
		return -EAGAIN;
	return len ? fn(ctx, ls->buf + pos, len) : 0;
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
 * iwtcp_fpdu_rx_begin(), _check() and _copy() over @buf.
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
	struct linear_src ls = { .buf = buf, .len = len };
	const struct iwtcp_fpdu_source src = {
		.visit = linear_visit, .arg = &ls,
		.avail = min_t(size_t, len, U32_MAX),
	};
	struct iwtcp_fpdu_rx r;
	int ret;

	ret = iwtcp_fpdu_rx_begin(&r, st, &src, NULL, 0);
	if (ret)
		return ret;
	if (r.ulpdu_len > ulpdu_size)
		return -EMSGSIZE;
	ret = iwtcp_fpdu_rx_check(&r, st, &src) ?:
	      iwtcp_fpdu_rx_copy(&r, &src, sizeof(struct iwtcp_mpa_fpdu_hdr),
				 ulpdu, r.ulpdu_len);
	if (ret)
		return ret;
	*ulpdu_len = r.ulpdu_len;
	st->off += r.l.wire_len;
	return r.l.wire_len;
}

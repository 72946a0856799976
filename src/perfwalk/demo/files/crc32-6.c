/*
 * crc32.c - CRC-32, four bytes at a time ("slicing-by-4").
 *
 * table[0] is the classic byte-at-a-time table: table[0][b] is the CRC
 * remainder of the byte b.  table[k][b] is the remainder of b followed by k
 * zero bytes, so that the four bytes of a word are reduced with four
 * independent look-ups instead of four dependent ones:
 *
 *	crc ^= word;
 *	crc = table[3][byte 0] ^ table[2][byte 1] ^ table[1][byte 2] ^
 *	    table[0][byte 3];
 *
 * See docs/crc.md for the derivation.
 */
#include <string.h>

#include "checksum.h"

#define CRC32_POLY	0xedb88320u	/* 0x04c11db7, bits reversed */

static uint32_t table[4][256];
static int table_ready;

static void
make_tables(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ CRC32_POLY : c >> 1;
		table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 4; k++)
			table[k][i] = (table[k - 1][i] >> 8) ^
			    table[0][table[k - 1][i] & 0xff];
	table_ready = 1;
}

/* The number of newline characters in buf[0..len). */
static uint64_t
count_lines(const unsigned char *p, size_t len)
{
	uint64_t n = 0;

	while (len-- > 0)
		n += *p++ == '\n';
	return n;
}

uint32_t
crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t w;

	if (!table_ready)
		make_tables();
	crc = ~crc;
	while (len >= 4) {
		memcpy(&w, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap32(w);
#endif
		crc ^= w;
		crc = table[3][crc & 0xff] ^ table[2][(crc >> 8) & 0xff] ^
		    table[1][(crc >> 16) & 0xff] ^ table[0][crc >> 24];
		p += 4;
		len -= 4;
	}
	while (len-- > 0)
		crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

void
cksum_init(struct cksum *c)
{
	c->crc = 0;
	c->size = 0;
	c->lines = 0;
}

void
cksum_update(struct cksum *c, const void *buf, size_t len)
{
	c->crc = crc32_update(c->crc, buf, len);
	c->size += len;
	c->lines += count_lines(buf, len);
}

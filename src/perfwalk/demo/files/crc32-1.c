/*
 * crc32.c - CRC-32, four bytes at a time ("slicing-by-4").
 */
#include <string.h>

#include "checksum.h"

#define POLY	0xedb88320u

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
			c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
		table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 4; k++)
			table[k][i] = (table[k - 1][i] >> 8) ^
			    table[0][table[k - 1][i] & 0xff];
	table_ready = 1;
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

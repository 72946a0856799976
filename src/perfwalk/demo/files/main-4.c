/*
 * checksum - print the CRC-32 and the size of files.
 *
 * usage: checksum [-Vx] [file ...]
 *
 * Without a file, or for "-", it reads the standard input.  -x prints the
 * CRC in hexadecimal, -V the version.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checksum.h"

#define VERSION	"0.1"
#define BLOCK	(64 * 1024)

struct file_sum {
	uint32_t		crc;
	unsigned long long	size;
	char			name[256];
};

static int	hex;		/* -x */

static int
sum_stream(FILE *fp, struct file_sum *fs)
{
	static unsigned char buf[BLOCK];
	size_t n;

	fs->crc = 0;
	fs->size = 0;
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
		fs->crc = crc32_update(fs->crc, buf, n);
		fs->size += n;
	}
	return ferror(fp) ? -1 : 0;
}

static void
print_sum(const struct file_sum *fs)
{
	if (hex)
		printf("%08lx %llu", (unsigned long)fs->crc, fs->size);
	else
		printf("%lu %llu", (unsigned long)fs->crc, fs->size);
	if (fs->name != NULL && fs->name[0] != '\0')
		printf(" %s", fs->name);
	putchar('\n');
}

static int
sum_file(const char *path)
{
	struct file_sum fs;
	FILE *fp;
	int failed;

	if (strcmp(path, "-") == 0) {
		fp = stdin;
		fs.name[0] = '\0';
	} else {
		if ((fp = fopen(path, "rb")) == NULL) {
			fprintf(stderr, "checksum: %s: %s\n", path, strerror(errno));
			return 1;
		}
		snprintf(fs.name, sizeof fs.name, "%s", path);
	}
	failed = sum_stream(fp, &fs) != 0;
	if (failed)
		fprintf(stderr, "checksum: %s: %s\n", path, strerror(errno));
	else
		print_sum(&fs);
	if (fp != stdin)
		fclose(fp);
	return failed;
}

int
main(int argc, char *argv[])
{
	int ch, i, status = 0;

	while ((ch = getopt(argc, argv, "Vx")) != -1) {
		switch (ch) {
		case 'V':
			printf("checksum %s\n", VERSION);
			return 0;
		case 'x':
			hex = 1;
			break;
		default:
			fprintf(stderr, "usage: checksum [-Vx] [file ...]\n");
			return 2;
		}
	}
	argc -= optind;
	argv += optind;

	if (argc == 0)
		return sum_file("-");
	for (i = 0; i < argc; i++)
		status |= sum_file(argv[i]);
	return status;
}

/*
 * replay.c - run a fuzz target over files, without libFuzzer: `make check`
 * replays every corpus file (a regression test for each crash found).
 * Usage: fuzz_<target> file-or-directory...
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define REPLAY_MAX_INPUT (4u * 1024 * 1024)

static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t n;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	buf = malloc(REPLAY_MAX_INPUT);
	if (buf == NULL) {
		fclose(f);
		return -1;
	}
	n = fread(buf, 1, REPLAY_MAX_INPUT, f);
	fclose(f);
	/* An exact-size copy, so sanitizers see any over-read. */
	{
		uint8_t *exact = malloc(n > 0 ? n : 1);
		if (exact == NULL) {
			free(buf);
			return -1;
		}
		memcpy(exact, buf, n);
		free(buf);
		(void)LLVMFuzzerTestOneInput(exact, n);
		free(exact);
	}
	return 0;
}

static int
replay_path(const char *path, int *count)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (stat(path, &st) == -1) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return replay_file(path);
	}
	d = opendir(path);
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char sub[4096];

		if (e->d_name[0] == '.')
			continue;
		(void)snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (replay_path(sub, count) == -1)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int
main(int argc, char **argv)
{
	int i, count = 0, rc = 0;

	for (i = 1; i < argc; i++)
		if (replay_path(argv[i], &count) == -1)
			rc = 1;
	printf("%s: replayed %d inputs\n", argv[0], count);
	return rc;
}

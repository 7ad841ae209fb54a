/*
 * acl.h - who may test: lists of allowed and denied prefixes (--allow,
 * --deny and an --allow-file), and the verdict on a source address.
 * Two parts, each of allow and deny entries: the options' (acl_add) and
 * the file's (acl_load_text/acl_load_file, which replace it whole, so the
 * file can be read again on SIGHUP).
 */
#ifndef IPERF_ACL_H
#define IPERF_ACL_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>

#define ACL_MAX_ENTRIES 100000          /* of a file */
#define ACL_MAX_LINE 1024               /* bytes of a file's line */
#define ACL_MAX_FILE (16u * 1024 * 1024) /* bytes of a file */

struct acl;

/* An empty list (permits everyone); NULL on ENOMEM. */
struct acl *acl_new(void);
void acl_free(struct acl *a);
/* An option's entry: allow (deny 0) or deny the prefix cidr (cidr_parse
 * syntax).  0, or -1 for a malformed prefix or ENOMEM. */
int acl_add(struct acl *a, int deny, const char *cidr);
/*
 * The file's entries from text (len bytes, not NUL-terminated): one per
 * line, "CIDR" or "allow CIDR" (allowed) or "deny CIDR"; '#' starts a
 * comment, at the start of a line or after an entry; spaces, tabs and a
 * CR around are ignored, blank lines too.  At most ACL_MAX_ENTRIES
 * entries, lines of at most ACL_MAX_LINE bytes, no NUL byte.  0 with the
 * file part replaced; or -1 with the file part as it was and "line N:
 * <what>" in err (errlen bytes, may be 0).
 */
int acl_load_text(struct acl *a, const char *text, size_t len, char *err,
    size_t errlen);
/* acl_load_text() of the file at path (at most ACL_MAX_FILE bytes); a file
 * that cannot be read gives -1 with "<path>: <reason>" in err. */
int acl_load_file(struct acl *a, const char *path, char *err,
    size_t errlen);
/* 1 if the source ss may test: no deny entry (of either part) matches it,
 * and if there is any allow entry (either part), one matches it; else 0. */
int acl_permits(const struct acl *a, const struct sockaddr_storage *ss);
/* 1 when neither part has an entry. */
int acl_empty(const struct acl *a);

#endif /* IPERF_ACL_H */

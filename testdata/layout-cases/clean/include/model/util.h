/* util.h: exit( in a comment does not count */

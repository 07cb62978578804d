/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* A singly linked FIFO append, for any node type with a `next` field. */
#ifndef DCIO_QUEUE_H
#define DCIO_QUEUE_H

#define QUEUE_APPEND(head, tail, node)         \
	do {                                   \
		(node)->next = NULL;           \
		if (tail)                      \
			(tail)->next = (node); \
		else                           \
			(head) = (node);       \
		(tail) = (node);               \
	} while (0)

#endif

/* logscan.c — placeholder */

/* traceback.c — placeholder */

#include "report.h"
void kg_report_text(const kg_report *r, FILE *out, const kg_text_style *style) { (void)r; (void)out; (void)style; }

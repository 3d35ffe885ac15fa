enum kg_status { KG_STATUS_OK = 0, KG_STATUS_INPUT = 3 };

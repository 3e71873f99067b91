import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SearchAttributeType } from '@temporalio/common';
import { WSMIGRATE_SEARCH_ATTRIBUTES } from '../contracts/search-attributes';

const INDEXED = temporal.api.enums.v1.IndexedValueType;
const INDEXED_TYPE: Record<SearchAttributeType, temporal.api.enums.v1.IndexedValueType> = {
  [SearchAttributeType.TEXT]: INDEXED.INDEXED_VALUE_TYPE_TEXT,
  [SearchAttributeType.KEYWORD]: INDEXED.INDEXED_VALUE_TYPE_KEYWORD,
  [SearchAttributeType.INT]: INDEXED.INDEXED_VALUE_TYPE_INT,
  [SearchAttributeType.DOUBLE]: INDEXED.INDEXED_VALUE_TYPE_DOUBLE,
  [SearchAttributeType.BOOL]: INDEXED.INDEXED_VALUE_TYPE_BOOL,
  [SearchAttributeType.DATETIME]: INDEXED.INDEXED_VALUE_TYPE_DATETIME,
  [SearchAttributeType.KEYWORD_LIST]: INDEXED.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/**
 * Registers wsmigrate's custom search attributes on the namespace (idempotent) and returns the names
 * it added. The dev server started by `make demo` gets them on its command line; a production
 * server needs this once (`wsmigrate setup`, or any worker start).
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = WSMIGRATE_SEARCH_ATTRIBUTES.filter((sa) => !(sa.name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return [];
  const searchAttributes: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const sa of missing) searchAttributes[sa.name] = INDEXED_TYPE[sa.type];
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  } catch (err) {
    // Another worker may have registered them between our list and add.
    if (!/already exists/i.test((err as Error).message)) throw err;
  }
  return missing.map((sa) => sa.name);
}

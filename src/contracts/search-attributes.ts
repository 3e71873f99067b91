import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Custom search attributes: operator-facing labels only, never secrets (they bypass the payload codec). */
export const WsmigrateTemplate = defineSearchAttributeKey('WsmigrateTemplate', SearchAttributeType.KEYWORD);
export const WsmigratePhase = defineSearchAttributeKey('WsmigratePhase', SearchAttributeType.KEYWORD);
export const WsmigratePendingApproval = defineSearchAttributeKey('WsmigratePendingApproval', SearchAttributeType.KEYWORD);

export const WSMIGRATE_SEARCH_ATTRIBUTES = [WsmigrateTemplate, WsmigratePhase, WsmigratePendingApproval];

export { KubeApiError, KubeClient, type KubeObjectMeta } from './client';
export { readKubeconfig, writeKubeconfig, type KubeConnection } from './kubeconfig';
export { startLocalKubeApi, type LocalKubeApi, type StartLocalKubeApiOptions } from './local-api-server';
export { missingRealStackTools, realStackTools, type RealStackTools } from './tools';

export * from './address';
export * from './go-json-string';
export * from './json-spans';
export * from './parse';
export * from './schema';

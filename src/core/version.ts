// The node's version (package.json) and the API version the OpenAPI document states.
import { readFileSync } from 'node:fs';

export const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
export const API_VERSION = '1.287.0';

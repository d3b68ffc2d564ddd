// The address rules live in src/net (below the HTTP layer and the store); kept here for the HTTP files.
export { AddressRuleError, normalizeAddress, parseCidrList } from '../net/ip-rules.ts';

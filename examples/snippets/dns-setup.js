// Runs before the shop's DNS checks: records which resolver answered, for the job log.
const resolver = process.env.DNS_RESOLVER ?? 'system';
console.log(`resolving through ${resolver}`);

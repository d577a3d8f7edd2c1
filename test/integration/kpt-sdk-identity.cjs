// The kpt functions SDK's identity function: its own run() reads the ResourceList, hands it to a
// function that changes nothing, and writes it back. Whatever differs between input and output is
// the SDK's YAML round trip (js-yaml 3), which is why valkey-krm does not use the SDK.
const { run } = require('kpt-functions');

const identity = async () => {};
identity.usage = 'Changes nothing: the output is what the SDK makes of the input.';

run(identity);

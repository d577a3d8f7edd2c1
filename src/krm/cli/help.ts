import { API_VERSION, RENDER_CONFIG_KIND } from '../../api/index.js';
import type { Tool } from '../tool.js';

/** What `--help` prints for each executable. */
export const HELP: Record<Tool, string> = {
  'render-valkey': `render-valkey: render ValkeyClusters into StatefulSets, Services, ConfigMaps, PodDisruptionBudgets and NetworkPolicies.

Usage:
  render-valkey < resource-list.yaml          KRM function: ResourceList (YAML or JSON) on stdin,
                                              ResourceList on stdout (kpt fn render/eval, kustomize)
  render-valkey [--config FILE] PATH...       plain files: read YAML/JSON files and directories,
                                              print multi-document YAML (Argo CD plugin, CI)
  render-valkey [--config FILE] -             plain files, multi-document YAML on stdin
  render-valkey plan --base DIR|--base-rev REV [PATH...]
                                              what a change does to every cluster, before merge
                                              (render-valkey plan --help)
  render-valkey set-shards NS/NAME N [PATH...]
                                              set one ValkeyCluster's spec.shards in its file,
                                              every other byte kept (the autoscaling job)

Options:
  --config FILE   the render config (a ValkeyRenderConfig, or a ConfigMap with flattened keys);
                  without it, the one ValkeyRenderConfig among the inputs is used
  -h, --help      show this help
  --version       print the version

The render config (apiVersion ${API_VERSION}, kind ${RENDER_CONFIG_KIND}):
  spec.outputDir          where kpt writes generated files (default: rendered)
  spec.clusterDomain      the cluster DNS domain (default: cluster.local)
  spec.defaultZoneSpread  bestEffort (default) or required
  spec.nodeSpread         required (default: a shard's pods on distinct nodes) or bestEffort (dev)
  spec.systemUsers.replication.passwordHash / .secretName (default valkey-replication)
  spec.systemUsers.controller.namespaces.NS  the controller's password hash for namespace NS, derived
                          from its key (docs/security.md) / .secretName (default valkey-controller)

Resources it does not own pass through byte for byte; its own earlier output is replaced.
Any error renders nothing: exit 1, a report on stderr (and results in KRM mode), and in
plain-files mode an empty stdout, so a GitOps tool never prunes clusters because of a typo.

Exit codes: 0 rendered (warnings and infos may be reported), 1 an error was found, 2 bad usage.`,
  'validate-valkey': `validate-valkey: check a Valkey menu (ValkeyImage, ValkeyConfig, ValkeyRole) and ValkeyClusters; render nothing.

Usage:
  validate-valkey < resource-list.yaml          KRM validator: items come back unchanged, with results
  validate-valkey [--config FILE] PATH...       plain files: report on stderr, nothing on stdout
  validate-valkey [--config FILE] -             plain files, multi-document YAML on stdin

Options:
  --config FILE   the render config (a ValkeyRenderConfig, or a ConfigMap with flattened keys)
  -h, --help      show this help
  --version       print the version

Runs every check render-valkey runs (schemas, config chains, images, roles, ACL users, render
config) and reports every problem at once. Exit codes: 0 valid, 1 an error was found, 2 bad usage.`,
};

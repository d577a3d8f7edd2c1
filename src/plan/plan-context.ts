import type { RenderConfig } from '../api/index.js';
import type { LiveSettingLookup } from './live-settings.js';
import type { MenuIndex } from './menu-index.js';

/** What every per-cluster comparison may consult besides the two renders. */
export interface PlanContext {
  base: MenuIndex;
  change: MenuIndex;
  baseRender: RenderConfig;
  changeRender: RenderConfig;
  isLiveSetting: LiveSettingLookup;
  /** Whether the render config itself differs (a cause no menu object names). */
  renderConfigChanged: boolean;
}

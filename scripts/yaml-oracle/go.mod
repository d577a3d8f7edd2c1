module valkey-krm.local/yaml-oracle

go 1.24.0

require (
	gopkg.in/yaml.v2 v2.4.0
	gopkg.in/yaml.v3 v3.0.1
)

// How people write each network's name (proper nouns, the same in every language). Pure, so the
// checkout and the dashboard's client components can use it.

const NETWORK_NAMES: Record<string, string> = {
  eth: "Ethereum",
  bsc: "BNB Smart Chain",
  polygon: "Polygon",
  lightning: "Lightning",
};

/** "Polygon" for `polygon`; an unknown network as it was given. */
export function networkName(network: string): string {
  return NETWORK_NAMES[network] ?? network;
}

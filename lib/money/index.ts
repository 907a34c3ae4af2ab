export * from "./decimal";
export * from "./brl";
export * from "./convert";
export * from "./fees";
export * from "./limits";

import { resetEnvForTests } from "@/lib/env";

/**
 * process.env as it is now, to put back once tests have changed it: `restore()` deletes the variables
 * set since, sets the saved ones back, and makes the next env() read the variables again.
 */
export function saveEnv(): { restore: () => void } {
  const saved = { ...process.env };
  return {
    restore() {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
      resetEnvForTests();
    },
  };
}

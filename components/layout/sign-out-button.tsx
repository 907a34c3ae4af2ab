"use client";

import { signOut } from "next-auth/react";
import { Button } from "@/components/ui/button";
import { useI18n } from "@/lib/i18n/client";

export function SignOutButton() {
  const { t } = useI18n();
  return (
    <Button variant="ghost" onClick={() => signOut({ callbackUrl: "/signin" })}>
      {t("nav.signOut")}
    </Button>
  );
}
